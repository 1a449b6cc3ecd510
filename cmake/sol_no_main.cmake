# cmake -DLIBRARIES=a,b -DNM=nm -P sol_no_main.cmake: fails when a library defines main (a
# program's source picked up by a library's glob), which would collide with its users' main.
string(REPLACE "," ";" LIBRARIES "${LIBRARIES}")
foreach(lib IN LISTS LIBRARIES)
  execute_process(COMMAND ${NM} --defined-only ${lib} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} cannot read ${lib}")
  endif()
  if(symbols MATCHES "(^|\n)[0-9a-fA-F]* *[TW] main\n")
    message(FATAL_ERROR "${lib} defines main: a program's source is in the library")
  endif()
  message(STATUS "${lib}: no main")
endforeach()
