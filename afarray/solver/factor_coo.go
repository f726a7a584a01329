package solver

import "github.com/oclsolve/oclsolve/afarray"

// The factorization types take a COO on the device as well as their own
// storage format: the format is then built where it is used (afarray.COO's
// ToSKS and ToCSC), so only the entries ever cross the bus (for Model 2 at
// n = 142 422, 84 MB instead of a 1.38 GB skyline). A host COO goes up with
// afarray.UploadCOO. The COO is left unchanged and may be released as soon
// as FactorizeCOO returns.

// FactorizeCOO builds the skyline of a on the device, keeps it (the factor
// owns it and Release frees it) and factors it in place with variant v.
func (c *sksOf[K]) FactorizeCOO(a *afarray.COO, v Variant) error {
	s, err := a.ToSKS()
	if err != nil {
		return err
	}
	if err := c.FactorizeInPlace(s, v); err != nil {
		s.Release()
		return err
	}
	c.owned = s
	return nil
}

// FactorizeCOO builds the CSC of a on the device and factors it with
// variant v. Factorize copies what the factor keeps (L for Cholesky, L and
// D for LDLT), so the CSC is freed when it returns.
func (c *cscOf[K]) FactorizeCOO(a *afarray.COO, v Variant) error {
	m, err := a.ToCSC()
	if err != nil {
		return err
	}
	defer m.Release()
	return c.Factorize(m, v)
}
