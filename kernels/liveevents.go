package kernels

import "sync/atomic"

// liveEvents counts the OpenCL events that this package's Go code holds:
// +1 where an event handle is obtained and kept past the C call that made
// it (queue markers and the pacer's, an Exchange's transfers and its
// marker, gates, the staging buffers' transfers), -1 where it is released.
// Events created and released inside one C helper never reach Go and are
// not counted. An event that Wait or Release forgets to release is a leak
// on the driver's side that no Go test sees otherwise (4126ce4 leaked two
// per Exchange transfer, thousands per multi-device CG solve); the counter
// makes it visible. An atomic add per event costs next to nothing beside
// the enqueue it counts.
var liveEvents atomic.Int64

// LiveEvents is the number of OpenCL events that package kernels holds now,
// on all devices. It is for leak checks in tests: take it before and after
// work that ends with everything released (after Device.Finish, which drops
// the launch pacer's markers) and compare. A device's staging buffers hold
// up to two events of their last large transfer until the next one.
func LiveEvents() int64 { return liveEvents.Load() }
