# Sourced by check.sh and sanitize.sh: `phase NAME` ends the running phase and starts NAME; each
# ended phase prints one line with its wall time and the CPU time (user + system) of the
# programs it ran, and the script's exit prints the same for the whole run. On a shared or busy
# machine the CPU time is the figure that does not depend on the load.
_phase_name=""
_phase_start=0
_phase_cpu0=0
_phase_first=0
_phase_prefix=${_phase_prefix:-phase}
# CPU seconds of the finished children of this shell so far: cutime + cstime of /proc/PID/stat
# (fields 16 and 17, in clock ticks; the command name, field 2, holds no spaces here).
_phase_tick=$(getconf CLK_TCK)
_phase_pid=$BASHPID
_phase_cpu() {
  awk -v tick="$_phase_tick" '{ printf "%d", ($16 + $17) / tick }' "/proc/$_phase_pid/stat"
}
_phase_line() {  # NAME WALL CPU [SUFFIX]
  printf '%s: %-40s %6d s wall %7d s CPU%s\n' "$_phase_prefix" "$1" "$2" "$3" "${4:-}" >&2
}
_phase_end() {
  if [ -n "$_phase_name" ]; then
    _phase_line "$_phase_name" $(($(date +%s) - _phase_start)) $(($(_phase_cpu) - _phase_cpu0))
  fi
  _phase_name=""
}
phase() {
  _phase_end
  _phase_name=$1
  _phase_start=$(date +%s)
  _phase_cpu0=$(_phase_cpu)
  [ "$_phase_first" -ne 0 ] || _phase_first=$_phase_start
}
_phase_exit() {
  local rc=$?
  _phase_end
  [ "$_phase_first" -eq 0 ] || _phase_line total $(($(date +%s) - _phase_first)) "$(_phase_cpu)" \
    "$([ "$rc" -eq 0 ] || echo " (exit $rc)")"
}
trap _phase_exit EXIT
