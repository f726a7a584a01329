package afarray

import "fmt"

// DType is the element type of an Array.
type DType int

// The element types. Float64 is the default: every solver works in double
// precision unless asked otherwise.
const (
	Float64 DType = iota
	Float32
	Int32
)

// Size returns the size of one element in bytes.
func (t DType) Size() int64 {
	if t == Float64 {
		return 8
	}
	return 4
}

// String returns "float64", "float32" or "int32".
func (t DType) String() string {
	switch t {
	case Float64:
		return "float64"
	case Float32:
		return "float32"
	case Int32:
		return "int32"
	}
	return fmt.Sprintf("DType(%d)", int(t))
}

// clType is the OpenCL C name of the type.
func (t DType) clType() string {
	switch t {
	case Float32:
		return "float"
	case Int32:
		return "int"
	}
	return "double"
}

func (t DType) isFloat() bool { return t == Float64 || t == Float32 }

func (t DType) valid() bool { return t == Float64 || t == Float32 || t == Int32 }
