#pragma once
/// Everything public in libconveyor, in one include. Two headers belong to libraries of their own
/// and are included separately: conveyor/distributed.hpp (conveyor_distributed, built with MPI) and
/// conveyor/sim.hpp (conveyor_manycore, the manycore simulator). The C API is conveyor/conveyor.h.
///
///   #include <conveyor/conveyor.hpp>
///   conveyor::Runtime rt;  // see runtime.hpp
#include "conveyor/access.hpp"
#include "conveyor/calibration.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "conveyor/models.hpp"
#include "conveyor/mover.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/progress.hpp"
#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "conveyor/stats.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
