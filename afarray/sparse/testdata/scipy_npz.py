# Writes SciPy/NumPy fixtures for npz_test.go into the directory argv[1]:
# the same random sparse matrix as CSR (compressed), CSC (stored), COO and
# CSR with int64 indices, its Matrix Market file, and .npy vectors.
# With "check DIR", loads what the Go side wrote and compares (prints OK).
import sys
import numpy as np
import scipy.io
import scipy.sparse as sp

mode, d = sys.argv[1], sys.argv[2]
if mode == "write":
    a = sp.random(37, 29, density=0.2, format="coo", random_state=7, dtype=np.float64)
    a.data = np.round(a.data * 1000) / 7  # exact round trips in text too
    scipy.io.mmwrite(d + "/a.mtx", a, precision=17)
    sp.save_npz(d + "/csr.npz", a.tocsr(), compressed=True)
    sp.save_npz(d + "/csc.npz", a.tocsc(), compressed=False)
    sp.save_npz(d + "/coo.npz", a, compressed=True)
    b = a.tocsr()
    b.indices = b.indices.astype(np.int64)
    b.indptr = b.indptr.astype(np.int64)
    sp.save_npz(d + "/csr64.npz", b, compressed=False)
    v = np.arange(11, dtype=np.float64) / 3
    np.save(d + "/v.npy", v)
    np.save(d + "/v32.npy", v.astype(np.float32))
    np.save(d + "/vcol.npy", v.reshape(11, 1))
    np.save(d + "/vbig.npy", v.astype(">f8"))
else:
    ref = scipy.io.mmread(d + "/ref.mtx").toarray()
    for f in ("go_csr", "go_csc", "go_coo"):
        m = sp.load_npz(d + "/" + f + ".npz").toarray()
        assert m.shape == ref.shape and np.array_equal(m, ref), f
    s = sp.load_npz(d + "/go_sym.npz")
    full = s + s.T - sp.diags(s.diagonal())
    assert np.array_equal(full.toarray(), scipy.io.mmread(d + "/sym.mtx").toarray()), "sym"
    x = np.load(d + "/go_x.npy")
    assert x.dtype == np.float64 and x.shape == (5,) and np.array_equal(x, [1.5, -2, 0, 1e-300, 3.25]), x
    print("OK")
