// The list of labs: one line per lab, in tab order (after the dashboard). Everything that counts or
// enumerates the labs is made from it: the View enum, the registry of views (views.cpp), the slots
// of Snapshot::labs, the app's lab rows (app/panels/labs.cpp).
//
//   X(id, Result)
//     id      the lab's View enumerator, and the stem of its rows' names
//     Result  the struct of the lab's numbers in a Snapshot (snapshot.lab<Result>()), in namespace smlab
//
// How to add a lab: docs/ARCHITECTURE.md, "Adding a lab".
#pragma once

#define SMLAB_LABS(X)                         \
  X(normalizers, NormalizersLab)              \
  X(stability, StabilityLab)                  \
  X(temperature, TemperatureLab)              \
  X(scaling, ScalingLab)                      \
  X(gradients, GradientsLab)                  \
  X(attention_variants, AttentionVariantsLab) \
  X(positions, PositionsLab)                  \
  X(heads, HeadsLab)                          \
  X(values, ValuesLab)                        \
  X(sampling, SamplingLab)                    \
  X(loss, LossGradientsLab)                   \
  X(geometry, GeometryLab)                    \
  X(init, InitLab)
