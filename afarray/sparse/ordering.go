package sparse

import "fmt"

// Ordering names accepted by Order.
const (
	OrderNatural = "natural" // the matrix's own order
	OrderRCM     = "rcm"     // reverse Cuthill–McKee
	OrderAuto    = "auto"    // the better of natural and RCM (the default for skyline storage)
)

// Order returns the permutation for the named ordering of c and the name of
// the ordering actually used (OrderAuto resolves to OrderNatural or
// OrderRCM). The natural ordering is the identity permutation.
//
// OrderAuto keeps whichever of the natural and RCM orderings gives the
// smaller profile (Profile), the natural one on a tie. RCM is a heuristic
// and makes the profile worse on several of the test matrices (nos3, nos4,
// bcsstk13, bcsstk15, bcsstk16 among them), which is why skyline storage
// should not apply it blindly.
func Order(c *COO, method string) (perm []int, used string, err error) {
	switch method {
	case OrderNatural:
		if _, err := orderMap(c, nil); err != nil {
			return nil, "", err
		}
		return identity(c.Rows), OrderNatural, nil
	case OrderRCM:
		p, err := ReverseCuthillMcKee(c)
		return p, OrderRCM, err
	case OrderAuto, "":
		p, err := ReverseCuthillMcKee(c)
		if err != nil {
			return nil, "", err
		}
		pr, err := Profile(c, p)
		if err != nil {
			return nil, "", err
		}
		p0, err := Profile(c, nil)
		if err != nil {
			return nil, "", err
		}
		if pr < p0 {
			return p, OrderRCM, nil
		}
		return identity(c.Rows), OrderNatural, nil
	}
	return nil, "", fmt.Errorf("%w: unknown ordering %q (want %s, %s or %s)", ErrUnsupported, method, OrderNatural, OrderRCM, OrderAuto)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
