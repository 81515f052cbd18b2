// How the module's engine errors become Python exceptions, one mapping for every call.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "absl/status/status.h"

namespace gavel::python {

// Raises the status as the Python exception that fits it: KeyError for what is not found,
// RuntimeError for a call the state does not allow now, ValueError for bad input.
[[noreturn]] inline void Raise(const absl::Status& status) {
  const std::string message(status.message());
  if (absl::IsNotFound(status)) throw pybind11::key_error(message);
  if (absl::IsFailedPrecondition(status)) throw std::runtime_error(message);
  throw pybind11::value_error(message);
}

}  // namespace gavel::python
