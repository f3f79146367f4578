#pragma once
// The QR codelets' device implementations (qr_device_codelets.cpp), added by QrCodelets' ctor.
#include "qr/q_forming.hpp"
#include "qr/qr.hpp"

namespace conveyor::apps::qr {

/// Adds the OpenCL implementations (when built with OpenCL) and the CUDA ones (when built with the
/// CUDA toolkit; else a stand-in that only simulated devices place) for c.precision.
void add_device_implementations(QrCodelets& c);
/// The same for the Q-forming updates (apply_geqrt, apply_tpqrt: the factorisation's update
/// kernels applying Q rather than Q^T); the tree's apply_ttqrt stays on CPUs, as its kernel does.
/// CUDA ones only in a build with the CUDA toolkit (no simulated platform models these codelets).
void add_device_implementations(QFormingCodelets& c);

}  // namespace conveyor::apps::qr
