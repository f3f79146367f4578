#pragma once
/// Everything public in Conveyor, in one include.
///
///   #include <conveyor/conveyor.hpp>
///   conveyor::Runtime rt;  // see runtime.hpp
#include "conveyor/access.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/report.hpp"
#include "conveyor/runtime.hpp"
#include "conveyor/stats.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
