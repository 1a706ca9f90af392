#!/bin/sh
# itrace-timeline: the call timeline, read by a real viewer in a real
# browser.  speedscope (npm, installed by `make deps-npm` into the build
# folder) loads the file in headless Chromium the way its own command line
# does (#localProfilePath); its sandwich view, dumped from the DOM, must
# list every function with the total and self time that the analysis'
# own tables (itrace-sqlite) give.  Then: long traces are merged down to
# --max-events with a warning, and a damaged trace says so in the file.
. tests/lib.sh
TL="$BIN/itrace-timeline"
SS="$ITRACE_ROOT/$ITRACE_BUILD/npm/node_modules/speedscope/dist/release/index.html"
PY=/usr/bin/python3
CHROME=$(command -v chromium || command -v chromium-browser)

if [ ! -f "$SS" ] || [ -z "$CHROME" ]; then
	echo "not ok 1 - speedscope ($SS) or chromium missing: run 'make deps deps-npm'"
	echo "1..1"
	exit 1
fi

# browser URL: open speedscope on FILE (a Chrome trace JSON) in VIEW,
# writing the DOM to stdout (or a screenshot with extra flags)
browser() {
	file=$1 view=$2
	shift 2
	printf 'speedscope.loadFileFromBase64("%s", "%s")\n' "$(basename "$file")" \
		"$(base64 -w0 "$file")" >"$file.js"
	rm -rf "$TMP/chrome"
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/chrome" \
		--virtual-time-budget=15000 "$@" "file://$SS#localProfilePath=$file.js&view=$view" \
		2>>"$TMP/chrome.err"
}

# sandwich rows from speedscope's DOM: "name total self" (µs as shown)
cat >"$TMP/rows.py" <<'EOF'
import html.parser, re, sys
class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.rows = []; self.row = None; self.cell = None
    def handle_starttag(self, tag, attrs):
        if tag == "tr": self.row = []
        elif tag == "td" and self.row is not None: self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None: self.row.append(self.cell); self.cell = None
        elif tag == "tr" and self.row:
            self.rows.append(self.row); self.row = None
    def handle_data(self, data):
        if self.cell is not None: self.cell += data
p = Rows(); p.feed(sys.stdin.read())
for r in p.rows:
    if len(r) == 3:
        t = re.match(r"([0-9.]+)µs", r[0]); s = re.match(r"([0-9.]+)µs", r[1])
        print(r[2], "%g" % float(t.group(1)), "%g" % float(s.group(1)))
EOF

"$BIN/itrace-collect" -q -o "$TMP/c.itr" -- "$DATA/export_calls"
check "export the call timeline" "$TL" -q "$TMP/c.itr" -o "$TMP/c.json"
check "it is JSON" "$PY" -m json.tool "$TMP/c.json" /dev/null
check_eq "one complete event per call" \
	"$("$BIN/itrace-sqlite" -q --level calls "$TMP/c.itr" -o "$TMP/c.db" && sqlite3 "$TMP/c.db" 'SELECT count(*) FROM calls WHERE id > 0')" \
	"$(grep -c '"ph":"X"' "$TMP/c.json")"

browser "$TMP/c.json" sandwich --dump-dom >"$TMP/dom.html"
if ! grep -q '<title>c.json - speedscope</title>' "$TMP/dom.html"; then
	# a browser that did not get to load the page in time (a loaded
	# machine) is started once more; what it shows is checked as before
	echo "# speedscope not loaded on the first start ($(wc -c <"$TMP/dom.html") bytes of DOM): once more"
	tail -3 "$TMP/chrome.err" | sed 's/^/# /'
	browser "$TMP/c.json" sandwich --dump-dom >"$TMP/dom.html"
fi
check "speedscope loaded the file (title)" grep -q '<title>c.json - speedscope</title>' "$TMP/dom.html"
PYTHONIOENCODING=utf-8 "$PY" "$TMP/rows.py" <"$TMP/dom.html" | sort >"$TMP/speedscope.txt"
check "speedscope's sandwich view lists the functions" grep -q '^fact ' "$TMP/speedscope.txt"
# the oracle: the analysis' own per-function totals (instructions =
# microseconds in the viewer; bytes that are not UTF-8 read \xHH in both),
# of the functions that were called
sqlite3 "$TMP/c.db" "SELECT symbol || ' ' || total_insn_count || ' ' || insn_count FROM functions_view WHERE total_insn_count > 0" |
	"$PY" -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "backslashreplace"))' |
	sort >"$TMP/oracle.txt"
check_files_eq "speedscope: every function's total and self = the analysis' tables" \
	"$TMP/oracle.txt" "$TMP/speedscope.txt"
browser "$TMP/c.json" time-ordered --screenshot="$TMP/shot.png" --window-size=1200,400 >/dev/null
check "screenshot of the flame chart" test -s "$TMP/shot.png"
[ -n "${ITRACE_KEEP_SCREENSHOT:-}" ] && cp "$TMP/shot.png" "$ITRACE_KEEP_SCREENSHOT"

# ---- long traces: at most --max-events calls, the shortest merged
"$TL" --max-events 5 "$TMP/c.itr" -o "$TMP/m.json" 2>"$TMP/m.err"
check_eq "merged: still exit 0" 0 $?
check "merged: a warning says so" grep -q "^itrace-timeline: warning: 2[0-9] of 27 calls shorter than [0-9]* instructions were merged" "$TMP/m.err"
check_eq "merged: at most 5 calls, every one at least the threshold, the threshold inside" "ok" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
t = int(d["otherData"]["merge_threshold"])
print("ok" if 0 < len(x) <= 5 and all(e["dur"] >= t for e in x) else "bad %d %d" % (len(x), t))' "$TMP/m.json")"
n=$(grep -c '"ph":"X"' "$TMP/m.json")
check_eq "merged: the calls kept are exactly those not shorter than the threshold" "$n" \
	"$(sqlite3 "$TMP/c.db" "SELECT count(*) FROM calls WHERE id > 0 AND return_time - call_time >= $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["otherData"]["merge_threshold"])' "$TMP/m.json")")"

# ---- damaged trace: the file says so, exit 1
"$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/chunks.itr" 1000 100
size=$(wc -c <"$TMP/chunks.itr")
head -c $((size - 400)) "$TMP/chunks.itr" >"$TMP/cut.itr"
"$TL" -q "$TMP/cut.itr" -o "$TMP/cut.json" 2>"$TMP/cut.err"
check_eq "damaged: exit 1" 1 $?
check "damaged: one-line error" grep -q "^itrace-timeline: '.*cut.itr' is damaged" "$TMP/cut.err"
check_eq "damaged: the file says it is incomplete, and has the calls before" "false yes" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["otherData"]["complete"], "yes" if any(e["ph"] == "X" for e in d["traceEvents"]) and "damaged" in d["otherData"]["damage"] else "no")' "$TMP/cut.json")"

# ---- a trace that records lost data: marked, exit 1
EXPORT_SYNTH_LOST=1 "$ITRACE_ROOT/$ITRACE_BUILD/tests/export-synth" "$TMP/lost.itr" 100
"$TL" -q "$TMP/lost.itr" -o "$TMP/lost.json" 2>/dev/null
check_eq "lost data: exit 1, otherData says so" "1 false" \
	"$? $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["otherData"]["complete"])' "$TMP/lost.json")"

# ---- errors
out=$("$TL" "$TMP/nope.itr" -o "$TMP/x.json" 2>&1); rc=$?
check_eq "missing input: exit 1, one line" "1|itrace-timeline: cannot open '$TMP/nope.itr': No such file or directory" "$rc|$out"
"$TL" --max-events 0 "$TMP/c.itr" >/dev/null 2>&1
check_eq "bad --max-events: usage error" 2 $?
done_testing
