package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Problem generators usable in place of a file name in `oclsolve solve`:
//
//	random:N     dense N x N matrix of seeded uniform values in [-1, 1) (--seed)
//	randspd:N    dense N x N symmetric positive definite matrix (random + N·I, symmetrised)
//	model1:N     the thesis's cantilever (Model 1) with N equations, or the nearest mesh
//	model2:N     the thesis's bridge pier (Model 2), likewise; its loads are the right-hand side
//
// Model meshes can also be given exactly: model1:AxBxC, model2:AxBxC.
func init() {
	registerGenerator("random", func(arg string, o *solveOptions) (*solveProblem, error) {
		return randomProblem(arg, o.Seed, false)
	})
	registerGenerator("randspd", func(arg string, o *solveOptions) (*solveProblem, error) {
		return randomProblem(arg, o.Seed, true)
	})
	registerGenerator("model1", func(arg string, o *solveOptions) (*solveProblem, error) { return modelProblem(1, arg, o) })
	registerGenerator("model2", func(arg string, o *solveOptions) (*solveProblem, error) { return modelProblem(2, arg, o) })
}

func randomProblem(arg string, seed uint64, spd bool) (*solveProblem, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("%w: want a positive order, got %q", errUsage, arg)
	}
	if n > 46340 {
		return nil, fmt.Errorf("%w: a dense random matrix of order %d has more than 2^31 entries", errUsage, n)
	}
	// The entries as a COO (16 bytes each) and the random values (8).
	if err := sparse.CheckHostMemory(fmt.Sprintf("a dense random matrix of order %d", n), 24*int64(n)*int64(n)); err != nil {
		return nil, err
	}
	vals, _ := makeRHS("random", n*n, seed+0x5eed)
	c := &sparse.COO{Rows: n, Cols: n, I: make([]int32, 0, n*n), J: make([]int32, 0, n*n), V: make([]float64, 0, n*n)}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			v := vals[i+n*j]
			if spd {
				v = (vals[i+n*j] + vals[j+n*i]) / 2
				if i == j {
					v += float64(n)
				}
			}
			c.I = append(c.I, int32(i))
			c.J = append(c.J, int32(j))
			c.V = append(c.V, v)
		}
	}
	return &solveProblem{A: c, N: n, NNZ: n * n}, nil
}

func modelProblem(model int, arg string, o *solveOptions) (*solveProblem, error) {
	var sys *fem.System
	var err error
	var note string
	grid := strings.Contains(arg, "x") || strings.Contains(arg, "×")
	var a, b, c int
	if grid {
		a, b, c, err = fem.ParseGrid(arg)
	} else {
		n, perr := strconv.Atoi(arg)
		if perr != nil || n < 1 {
			return nil, fmt.Errorf("%w: want an order N or a mesh AxBxC, got %q", errUsage, arg)
		}
		var exact bool
		if model == 1 {
			a, b, c, exact, err = fem.Model1ForOrder(n)
		} else {
			a, b, c, exact, err = fem.Model2ForOrder(n)
		}
		if err == nil && !exact {
			note = fmt.Sprintf("no model%d mesh has exactly %d equations; using the nearest, %s", model, n, fem.FormatGrid(a, b, c))
		}
	}
	if err != nil {
		return nil, err
	}
	var rows fem.RowRange
	if o != nil {
		rows = o.rows
	}
	if model == 1 {
		sys, err = fem.Model1(fem.Model1Options{NX: a, NY: b, NZ: c, Rows: rows})
	} else {
		sys, err = fem.Model2(fem.Model2Options{A: a, B: b, C: c, Rows: rows})
	}
	if err != nil {
		return nil, err
	}
	p := &solveProblem{A: sys.K, B: sys.F, N: sys.NumDOF, NNZ: sys.K.NNZ(), Model: sys}
	if note != "" {
		p.Spec = note
	}
	return p, nil
}
