#pragma once
// The QR codelets' device implementations (qr_device_codelets.cpp), added by QrCodelets' ctor.
#include "qr/qr.hpp"

namespace conveyor::apps::qr {

/// Adds the OpenCL implementations (when built with OpenCL) and the CUDA ones (when built with the
/// CUDA toolkit; else a stand-in that only simulated devices place) for c.precision.
void add_device_implementations(QrCodelets& c);

}  // namespace conveyor::apps::qr
