#pragma once
// A vectorized environment: N tables of one game stepped in one call with the GIL released,
// results in numpy arrays, finished tables reset automatically.
#include <pybind11/pybind11.h>

namespace gavel::python {

void BindVectorEnv(pybind11::module_& module);

}  // namespace gavel::python
