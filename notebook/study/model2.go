package study

import "github.com/oclsolve/oclsolve/afarray/fem"

// Model2Orders returns, for a scale, the bridge pier's orders at which
// notebook 03 runs the ten techniques, the four best, the skyline
// factorizations, and the memory tables.
func Model2Orders(scale string) (ten, best, sks, mem []int) {
	all := fem.Model2Orders
	switch scale {
	case Small:
		return all[:1], all[:2], all[:3], all[:3]
	case Large:
		return all[:5], all[:8], append(append([]int{}, all...), 205609, 260000), all[:10]
	}
	return all[:5], all[:8], all, all[:10]
}
