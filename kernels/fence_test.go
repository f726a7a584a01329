package kernels

import "testing"

// device_fence is PTX only where NVIDIA's compiler takes PTX inline
// assembly: anywhere else the program would not build.
func TestPTXFenceOnlyOnNVIDIA(t *testing.T) {
	cases := []struct {
		info DeviceInfo
		want bool
	}{
		{DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "NVIDIA CUDA"}, true},
		{DeviceInfo{Type: "CPU", Vendor: "NVIDIA Corporation", Platform: "NVIDIA CUDA"}, false},
		{DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "Portable Computing Language"}, false},
		{DeviceInfo{Type: "GPU", Vendor: "Advanced Micro Devices, Inc.", Platform: "AMD Accelerated Parallel Processing"}, false},
		{DeviceInfo{Type: "CPU", Vendor: "AuthenticAMD", Platform: "Portable Computing Language"}, false},
	}
	for _, c := range cases {
		if got := ptxFence(c.info); got != c.want {
			t.Errorf("ptxFence(%+v) = %v, want %v", c.info, got, c.want)
		}
	}
	t.Setenv("OCLSOLVE_PTX_FENCE", "off")
	if ptxFence(cases[0].info) {
		t.Error("OCLSOLVE_PTX_FENCE=off did not turn the PTX fence off")
	}
}
