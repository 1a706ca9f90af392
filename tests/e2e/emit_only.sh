#!/bin/sh
# scripts/emit_only.sh: no collector builds a record outside the emitter
# (collectors/emit.c).  The tree passes; copies of it with one violation
# planted fail, naming the file and line; a comment that names the
# writer's functions is no violation.
. tests/lib.sh
SCAN="$ITRACE_ROOT/scripts/emit_only.sh"

check "the collectors build every record through emit.h" sh "$SCAN" "$ITRACE_ROOT"

# plant NAME CODE: a copy of collectors/ with CODE appended to maps.c
# (one function) must fail, naming maps.c at the line of the violation.
plant() {
	rm -rf "$TMP/root" && mkdir -p "$TMP/root" && cp -R "$ITRACE_ROOT/collectors" "$TMP/root/"
	at=$(($(wc -l <"$TMP/root/collectors/maps.c") + 5)) # the line after "{"
	printf '\nint planted(struct itrace_writer *w, const struct itrace_record *given);\nint planted(struct itrace_writer *w, const struct itrace_record *given)\n{\n%s\n}\n' "$2" >>"$TMP/root/collectors/maps.c"
	out=$(sh "$SCAN" "$TMP/root" 2>&1)
	rc=$?
	check_eq "$1: fails" 1 "$rc"
	case "$out" in
	*"collectors/maps.c:$at:"*) ok "$1: names collectors/maps.c:$at" ;;
	*) fail "$1: names collectors/maps.c:$at" "$out" ;;
	esac
}
plant "a record of its own" '	struct itrace_record rec = *given;
	(void)w;
	return rec.type;'
plant "a record type set" '	((struct itrace_record *)given)->type = ITRACE_REC_LOST;
	return w == 0;'
plant "a record of a designated initializer" '	return ((struct itrace_record){.type = ITRACE_REC_BRANCH}).type + (given == 0) + (w == 0);'
plant "a record written to the writer" '	return itrace_writer_write(w, given);'
plant "a branch written to the writer" '	return (given == 0) + itrace_writer_branch(w, 1, 2, 0, 0);'
plant "a block defined in the writer" '	return (given == 0) + itrace_writer_block_define(w, 1, 0, 0, 0, 0);'
# a writer function not among those that open, tick, flush and close it,
# under either prefix (itrace_write_* may become itrace_writer_*)
plant "a branch written under the writer's other prefix" '	return (given == 0) + itrace_writer_branch(w, 1, 2, 0, 0);'
plant "a writer call after an allowed one" '	return itrace_writer_tick(w) + itrace_writer_mem(w, 1, 2, (given == 0));'

# Opening, ticking, flushing, counting and closing the writer is allowed.
rm -rf "$TMP/root" && mkdir -p "$TMP/root" && cp -R "$ITRACE_ROOT/collectors" "$TMP/root/"
printf 'int life(struct itrace_writer *w, struct itrace_writer_stats *st);\nint life(struct itrace_writer *w, struct itrace_writer_stats *st)\n{\n\titrace_writer_stats(w, st);\n\treturn itrace_writer_tick(w) + itrace_writer_flush(w) + itrace_writer_close(w, 0, 0);\n}\n' >>"$TMP/root/collectors/maps.c"
check "the writer's open, tick, flush, stats and close pass" sh "$SCAN" "$TMP/root"

# Comments may name them.
rm -rf "$TMP/root" && mkdir -p "$TMP/root" && cp -R "$ITRACE_ROOT/collectors" "$TMP/root/"
printf '/* not itrace_writer_branch(w, ...), nor rec.type = ITRACE_REC_LOST */\n// nor itrace_writer_write(w, &rec)\n' >>"$TMP/root/collectors/maps.c"
check "comments that name the writer's functions pass" sh "$SCAN" "$TMP/root"
# The emitter itself is where records are built.
printf 'int more(struct itrace_writer *w);\nint more(struct itrace_writer *w) { return itrace_writer_branch(w, 1, 2, 0, 0); }\n' >>"$TMP/root/collectors/emit.c"
check "emit.c may build records" sh "$SCAN" "$TMP/root"
check_fails "a tree without collectors/ is bad usage" sh "$SCAN" "$TMP/nothing"
done_testing
