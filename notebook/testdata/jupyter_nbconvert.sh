#!/bin/sh
# Executes notebooks/00-quickstart.ipynb through Debian's real Jupyter
# (jupyter nbconvert --execute) with oclsolve's kernelspec, installed into a
# temporary prefix, and checks the outputs: a valid nbformat 4 notebook with
# an HTML array display, a PNG plot and an SVG spy plot. A code cell whose
# metadata carries {"oclsolve": {"expect": "MIME/TYPE"}} must have an output
# of that type (notebook/testdata/display_names.ipynb uses it).
#
# usage: notebook/testdata/jupyter_nbconvert.sh OCLSOLVE_BINARY [NOTEBOOK]
# Needs: jupyter-nbconvert python3-nbconvert python3-nbclient jupyter-client
#        python3-ipykernel (Debian packages); run from the repository root.
set -eu
bin=$(readlink -f "$1")
nb=$(readlink -f "${2:-notebooks/00-quickstart.ipynb}")
py=/usr/bin/python3 # pyenv's python3 may shadow Debian's, which has nbformat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" kernel install --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_DATA_DIR="$tmp/data" JUPYTER_RUNTIME_DIR="$tmp/runtime" JUPYTER_CONFIG_DIR="$tmp/config"
jupyter kernelspec list >"$tmp/specs" 2>/dev/null
grep -q oclsolve "$tmp/specs"
cp "$nb" "$tmp/in.ipynb"
# Cells use paths relative to the notebook's directory; run it there.
cd "$(dirname "$nb")"
jupyter nbconvert --to notebook --execute \
	--ExecutePreprocessor.kernel_name=oclsolve --ExecutePreprocessor.timeout=300 \
	--output "$tmp/out.ipynb" "$nb"
"$py" - "$tmp/out.ipynb" <<'PY'
import sys, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbformat.validate(nb)
mimes = set()
for c in nb.cells:
    if c.cell_type != "code":
        continue
    assert c.execution_count is not None, "cell not executed: %r" % c.source[:40]
    for o in c.outputs:
        assert o.output_type != "error", "cell failed: %s: %s" % (o.ename, o.evalue)
        mimes.update(o.get("data", {}).keys())
    want = c.metadata.get("oclsolve", {}).get("expect")
    got = set(k for o in c.outputs for k in o.get("data", {}).keys())
    assert want is None or want in got, "cell %r: outputs %s, want %s" % (c.source[:60], sorted(got), want)
for want in ("text/html", "image/png", "image/svg+xml"):
    assert want in mimes, "no %s output in %s" % (want, sorted(mimes))
print("jupyter nbconvert: %d cells ran, outputs %s" % (len(nb.cells), ", ".join(sorted(mimes))))
PY
