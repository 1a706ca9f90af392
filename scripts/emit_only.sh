#!/bin/sh
# scripts/emit_only.sh [ROOT] - every record a collector writes is built by
# the emitter (collectors/emit.h, emit.c): fails, naming file and line,
# when a collector source outside emit.c/emit.h
#   - holds a struct itrace_record of its own (not a pointer to one the
#     emitter built: a sink may keep those),
#   - sets a record type (.type = ITRACE_REC_..., ->type = ITRACE_REC_...),
#   - calls a writer function other than those that open, tick, flush,
#     count and close it (itrace_writer_write, itrace_write_* and
#     itrace_writer_*_define write records; so would functions the writer
#     gains, under either prefix).
# Comments are left out (gcc -fpreprocessed), so a comment may name them.
# Scans ROOT/collectors (default: the current directory's), test helpers
# (collectors/tests/) excepted.  Exit 0 clean, 1 violations, 2 bad usage.
ROOT=${1:-.}
if [ ! -d "$ROOT/collectors" ]; then
	echo "emit_only: no collectors/ in '$ROOT'" >&2
	exit 2
fi
PATTERN='struct[[:space:]]+itrace_record[[:space:]]+[A-Za-z_]'
PATTERN="$PATTERN|(\.|->)[[:space:]]*type[[:space:]]*=[[:space:]]*ITRACE_REC_"
# the writer's functions a collector may call: none of them writes a record
LIFECYCLE=' itrace_writer_open itrace_writer_open_fd itrace_writer_options_init itrace_writer_tick itrace_writer_flush itrace_writer_stats itrace_writer_close itrace_writer_abandon '
bad=0
for f in $(find "$ROOT/collectors" -path "$ROOT/collectors/tests" -prune -o \
	\( -name '*.c' -o -name '*.h' \) -print | sort); do
	case "$f" in */collectors/emit.c | */collectors/emit.h) continue ;; esac
	# Without comments; line markers keep the line numbers right.
	hits=$(gcc -fpreprocessed -dD -E "$f" 2>/dev/null |
		awk -v f="${f#"$ROOT"/}" -v re="$PATTERN" -v allowed="$LIFECYCLE" '
		/^# [0-9]+ / { line = $2 - 1; next }
		{ line++ }
		$0 ~ re { printf "%s:%d: %s\n", f, line, $0; next }
		{
			# calls of itrace_write_* / itrace_writer_* not in the list
			rest = $0
			while (match(rest, /(^|[^A-Za-z0-9_])itrace_writer?_[a-z0-9_]+[ \t]*\(/)) {
				call = substr(rest, RSTART, RLENGTH)
				rest = substr(rest, RSTART + RLENGTH)
				sub(/^[^i]*/, "", call)
				sub(/[ \t]*\($/, "", call)
				if (index(allowed, " " call " ") == 0) {
					printf "%s:%d: %s\n", f, line, $0
					break
				}
			}
		}')
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" >&2
		bad=1
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "emit_only: records built outside collectors/emit.c (use the emit_* functions of emit.h)" >&2
	exit 1
fi
exit 0
