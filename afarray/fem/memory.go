package fem

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// assemblyBytesPerDOF is a lower bound on the host memory that building and
// assembling a hexahedral model takes per equation: about 40 stored entries
// of the lower triangle per equation at 16 bytes, the element-to-node maps,
// the node graph and the sort buffers of the assembly. Measured peaks are
// about 6 KB per equation (Model 2 at n = 51 171: 311 MB); the bound is set
// below that so that no model that fits is refused.
const assemblyBytesPerDOF = 4096

// checkAssemblyMemory refuses, before anything is built, a model whose
// assembly cannot fit the host memory available. The error wraps
// sparse.ErrTooLarge and names the order and the sizes.
func checkAssemblyMemory(model, mesh string, dofs int) error {
	need := int64(dofs) * assemblyBytesPerDOF
	if err := sparse.CheckHostMemory(fmt.Sprintf("%s on mesh %s (%d equations)", model, mesh, dofs), need); err != nil {
		return err
	}
	return nil
}
