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
func (c *SKSCholesky) FactorizeCOO(a *afarray.COO, v Variant) error {
	return c.factorizeCOO(a, v, c.FactorizeInPlace)
}

// FactorizeCOO builds the skyline of a on the device, keeps it (the factor
// owns it and Release frees it) and factors it in place with variant v.
func (c *SKSLDLT) FactorizeCOO(a *afarray.COO, v Variant) error {
	return c.factorizeCOO(a, v, c.FactorizeInPlace)
}

// FactorizeCOO builds the CSC of a on the device and factors it with
// variant v; the CSC is freed once the factor holds L.
func (c *CSCCholesky) FactorizeCOO(a *afarray.COO, v Variant) error {
	return factorizeCSCFromCOO(a, v, c.Factorize)
}

// FactorizeCOO builds the CSC of a on the device and factors it with
// variant v; the CSC is freed once the factor holds L and D.
func (c *CSCLDLT) FactorizeCOO(a *afarray.COO, v Variant) error {
	return factorizeCSCFromCOO(a, v, c.Factorize)
}

// factorizeCOO is FactorizeCOO for both skyline factor types: inPlace is
// the type's FactorizeInPlace (which knows Cholesky from LDLᵀ and the block
// width); the skyline it builds becomes the factor's own.
func (f *sksFactor) factorizeCOO(a *afarray.COO, v Variant, inPlace func(*afarray.SKS, Variant) error) error {
	s, err := a.ToSKS()
	if err != nil {
		return err
	}
	if err := inPlace(s, v); err != nil {
		s.Release()
		return err
	}
	f.owned = s
	return nil
}

// factorizeCSCFromCOO is FactorizeCOO for both CSC factor types: factorize
// is the type's Factorize, which copies what it keeps, so the CSC built
// here is freed when it returns.
func factorizeCSCFromCOO(a *afarray.COO, v Variant, factorize func(*afarray.CSC, Variant) error) error {
	m, err := a.ToCSC()
	if err != nil {
		return err
	}
	defer m.Release()
	return factorize(m, v)
}
