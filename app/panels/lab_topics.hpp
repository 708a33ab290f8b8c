// The plots of the attention story's labs (issue #17): values, sampling, loss & gradients, geometry,
// init & norms. Each builds a LabView from its core lab's numbers only (smlab/labs/<name>.hpp).
#pragma once

#include "panels/labs.hpp"
#include "smlab/labs/geometry.hpp"
#include "smlab/labs/init.hpp"
#include "smlab/labs/loss.hpp"
#include "smlab/labs/qk_gradients.hpp"
#include "smlab/labs/sampling.hpp"
#include "smlab/labs/values.hpp"

namespace smlab::app {

LabView build_values_view(const ValuesLab& lab);
LabView build_sampling_view(const SamplingLab& lab);
LabView build_loss_view(const LossLab& lab, const QkGradientSweep& probe_sweep, const QkGradientSweep& target_sweep);
LabView build_geometry_view(const GeometryLab& lab);
LabView build_init_view(const InitLab& lab);

}  // namespace smlab::app
