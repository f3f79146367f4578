#include "stream/gold.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>

#include "conveyor/error.hpp"

namespace conveyor {
namespace stream {

double Gold::apply(StreamKernel kernel, double scalar, std::size_t n) {
  switch (kernel) {
    case StreamKernel::Copy:
      c = a;
      break;
    case StreamKernel::Scale:
      b = scalar * c;
      break;
    case StreamKernel::Add:
      c = a + b;
      break;
    case StreamKernel::Triad:
      a = b + scalar * c;
      break;
    case StreamKernel::Dot:
      return a * b * static_cast<double>(n);
  }
  return 0;
}

// Summing n equal products can, at worst, lose half an ulp of the running sum per addition, all in
// the same direction; 1e-8 covers every order a reduction tree or a sequential loop produces below
// 10^8 elements, and the bound grows with n beyond that.
double dot_epsilon(std::size_t n) { return std::max(1e-8, static_cast<double>(n) * DBL_EPSILON); }

}  // namespace stream

void validate_stream_arrays(std::span<const double> a, std::span<const double> b,
                            std::span<const double> c, double gold_a, double gold_b, double gold_c,
                            std::string_view where) {
  struct Array {
    const char* name;
    std::span<const double> values;
    double gold;
  };
  for (const Array& array : {Array{"a", a, gold_a}, Array{"b", b, gold_b}, Array{"c", c, gold_c}}) {
    std::span<const double> v = array.values;
    std::size_t bad = 0, first = v.size();
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!stream::within(v[i], array.gold, stream::kArrayEpsilon)) {
        if (bad++ == 0) first = i;
      }
    if (bad)
      throw ValidationError(fmt::format(
          "{}: array {} failed validation: {} of {} elements differ from the gold value {:.17g} "
          "by more than {:g} (relative); first at index {}: {:.17g}",
          where, array.name, bad, v.size(), array.gold, stream::kArrayEpsilon, first, v[first]));
  }
}

}  // namespace conveyor
