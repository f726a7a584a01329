#!/bin/sh
# Checks the updating progress display of a long cell through Debian's real
# Jupyter, with OCLSOLVE_PROGRESS_AFTER=0s so that it shows at once:
#  1. the wire messages (jupyter_client): the cell publishes display_data
#     with a transient display_id and a <progress> bar, then
#     update_display_data messages with the same display_id, the last one
#     holding the cell's time and the phase split of its solves;
#  2. the outputs (jupyter nbconvert --execute of
#     notebook/testdata/progress.ipynb): the cell keeps one display_data
#     output, the final state of that display.
#
# usage: notebook/testdata/jupyter_progress.sh OCLSOLVE_BINARY
# Run from the repository root; needs what jupyter_nbconvert.sh needs.
set -eu
bin=$(readlink -f "$1")
nb=$(readlink -f notebook/testdata/progress.ipynb)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" kernel install --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_DATA_DIR="$tmp/data" JUPYTER_RUNTIME_DIR="$tmp/runtime" JUPYTER_CONFIG_DIR="$tmp/config"
export OCLSOLVE_PROGRESS_AFTER=0s
cd "$(dirname "$nb")"
"$py" - "$nb" <<'PY'
import sys, json, queue
from jupyter_client.manager import start_new_kernel
nb = json.load(open(sys.argv[1]))
code = "".join(nb["cells"][1]["source"])
km, kc = start_new_kernel(kernel_name="oclsolve")
try:
    msg_id = kc.execute(code)
    msgs = []
    while True:
        m = kc.get_iopub_msg(timeout=300)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        msgs.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    reply = kc.get_shell_msg(timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
shown = [m for m in msgs if m["msg_type"] == "display_data"]
assert len(shown) == 1, "display_data messages: %d" % len(shown)
did = shown[0]["content"]["transient"].get("display_id")
assert did, "display_data without a display_id: %r" % shown[0]["content"]
assert "<progress" in shown[0]["content"]["data"]["text/html"], shown[0]["content"]["data"]
ups = [m for m in msgs if m["msg_type"] == "update_display_data"]
assert len(ups) >= 2, "update_display_data messages: %d" % len(ups)
for u in ups:
    assert u["content"]["transient"]["display_id"] == did, u["content"]
texts = [shown[0]["content"]["data"]["text/plain"]] + [u["content"]["data"]["text/plain"] for u in ups]
# Which phases the half-second updates catch depends on the machine's
# speed (notebook's TestProgressDisplay checks the factorization's counts).
assert any(t.startswith("[running ") and "s: " in t for t in texts), texts
last = texts[-1]
import re
def solves(t):
    m = re.search(r"\((\d+) solves, ", t)
    return int(m.group(1)) if m else 0
assert last.startswith("ran ") and "solver: " in last and solves(last) >= 3, last
print("jupyter_client: display_data %s, %d update_display_data; last: %s" % (did, len(ups), last))
sys.stdout.flush()
import os
os._exit(0)  # the client's destructor would log into a logging module already torn down
PY
jupyter nbconvert --to notebook --execute \
	--ExecutePreprocessor.kernel_name=oclsolve --ExecutePreprocessor.timeout=300 \
	--output "$tmp/out.ipynb" "$nb" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
"$py" - "$tmp/out.ipynb" <<'PY'
import sys, re, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbformat.validate(nb)
outs = nb.cells[1].outputs
assert [o.output_type for o in outs] == ["display_data"], [o.output_type for o in outs]
text = "".join(outs[0].data["text/plain"])
m = re.search(r"\((\d+) solves, ", text)
assert text.startswith("ran ") and m and int(m.group(1)) >= 3, text
print("jupyter nbconvert: the cell's one output is the display's final state: %s" % text)
PY
