#!/usr/bin/python3
"""Load an itrace-sqlite database with perf's own exported-sql-viewer.py.

Usage: perf_viewer.py VIEWER DB

Imports the viewer (Debian linux-perf) as a module, headless
(QT_QPA_PLATFORM=offscreen), builds its main window (which reads the event
list and tables, as opening the database does), then runs the reports the
way its windows do: the context-sensitive call graph, the call tree and
"All branches" (its branch model fetches rows in a separate process).
Prints what the user would see, one line per row:

    window <title>               the main window was built
    menu <label>                 a report in its Reports menu
    graph <depth> <name> <dso> <count> <time> <insns> <branches>
    tree <depth> <name> <dso> <call time> <time> <insns> <branches>
    branch <time> <command> <pid> <tid> <type> <insn cnt> <branch text>

Exits 1 with a message if the viewer fails.
"""
import importlib.util
import os
import sys
import time

os.environ["QT_QPA_PLATFORM"] = "offscreen"


def load_viewer(path, db):
    sys.argv = [path, db]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # as when run directly
    spec = importlib.util.spec_from_file_location("exported_sql_viewer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def walk(item, depth, out, tag):
    if not item.query_done:
        item.Select()
    for child in item.child_items:
        out.append((tag, depth, child.data))
        walk(child, depth + 1, out, tag)


def main():
    viewer_path, db = sys.argv[1], sys.argv[2]
    v = load_viewer(viewer_path, db)
    dbref = v.DBRef(True, db)
    qdb, dbname = dbref.Open("main")
    glb = v.Glb(dbref, qdb, dbname)
    app = v.QApplication(sys.argv)
    glb.app = app
    win = v.MainWindow(glb)
    glb.mainwindow = win
    print("window", win.windowTitle())
    for menu in win.menuBar().findChildren(v.QMenu):
        for action in menu.actions():
            if action.text():
                print("menu", action.text().replace("&", ""))

    rows = []
    walk(v.CallGraphModel(glb).root, 0, rows, "graph")
    walk(v.CallTreeModel(glb).root, 0, rows, "tree")
    for tag, depth, data in rows:
        # have_ipc layout: name, dso, count|call time, time, time%, insns,
        # insns%, cycles, cycles%, IPC, branches, branches%
        if len(data) == 12:
            print(tag, depth, data[0] or "-", data[1] or "-", data[2] or "-", data[3] or "-",
                  data[5] or "-", data[10] or "-")
        else:
            print(tag, depth, data[0] or "-", data[1] or "-", data[2] or "-", data[3] or "-",
                  "-", data[5] or "-")

    events = v.GetEventList(glb.db)
    branches_id = events.index("branches") + 1
    win.NewBranchView(branches_id)
    model = None
    for sub in win.mdi_area.subWindowList():
        if isinstance(sub, v.BranchWindow):
            model = sub.model
    if model is None:
        raise SystemExit("perf_viewer: no branch window opened")
    deadline = time.time() + 60
    while model.more and time.time() < deadline:
        app.processEvents()
        time.sleep(0.01)
    for item in model.root.child_items[:model.root.child_count]:
        d = item.data
        print("branch", str(d[0]).strip(), d[2], d[3], d[4], d[5], d[7] if len(d) > 8 else "-",
              " ".join(str(d[-1]).split()))
    sys.stdout.flush()
    glb.ShutdownInstances()
    os._exit(0)


if __name__ == "__main__":
    main()
