# Sourced by check.sh and sanitize.sh: `phase NAME` ends the running phase and starts NAME; each
# ended phase prints one line with its wall time, and the script's exit prints the last one and
# the total since the first phase: "check: build ... 312 s".
_phase_name=""
_phase_start=0
_phase_first=0
_phase_prefix=${_phase_prefix:-phase}
_phase_end() {
  local now
  now=$(date +%s)
  if [ -n "$_phase_name" ]; then
    printf '%s: %-44s %6d s\n' "$_phase_prefix" "$_phase_name" $((now - _phase_start)) >&2
  fi
  _phase_name=""
}
phase() {
  _phase_end
  _phase_name=$1
  _phase_start=$(date +%s)
  [ "$_phase_first" -ne 0 ] || _phase_first=$_phase_start
}
_phase_exit() {
  local rc=$?
  _phase_end
  [ "$_phase_first" -eq 0 ] ||
    printf '%s: %-44s %6d s%s\n' "$_phase_prefix" "total" $(($(date +%s) - _phase_first)) \
      "$([ "$rc" -eq 0 ] || echo " (exit $rc)")" >&2
}
trap _phase_exit EXIT
