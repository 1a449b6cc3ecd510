# sol_split_hopper_sources(SOURCES HOPPER): moves from the list SOURCES into the list HOPPER the
# CUDA files that include a Hopper header (a path under kernels/ with "hopper" in it: wgmma, TMA,
# mbarrier transactions, clusters), which compile for sm_90a only. The include is the one fact that
# makes a file Hopper-only; a new rung that includes one is picked up at the next configure (a
# glob change re-runs it; after adding such an include to an existing file, re-run cmake).
function(sol_split_hopper_sources sources hopper)
  set(rest "")
  set(only90a "")
  foreach(f IN LISTS ${sources})
    file(STRINGS ${f} hits REGEX "^[ \t]*#[ \t]*include[ \t]+\"kernels/[^\"]*hopper[^\"]*\"")
    if(hits)
      list(APPEND only90a ${f})
    else()
      list(APPEND rest ${f})
    endif()
  endforeach()
  set(${sources} ${rest} PARENT_SCOPE)
  set(${hopper} ${only90a} PARENT_SCOPE)
endfunction()
