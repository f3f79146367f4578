// The application pair of seed 004 (matrix product, MD5 of 64-byte messages) on the CPU and on each
// device. The CPU runs first and is the reference: every device result is checked against it, and
// the crossover is the size from which the device is faster.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/records.hpp"
#include "plan.hpp"

namespace conveyor::probe {
namespace {

// A product of single-precision matrices with entries in [-1, 1] summed in any order stays far
// below this relative (Frobenius) error; a wrong kernel lands near 1.
constexpr double kMatmulTolerance = 1e-4;

struct Inputs {
  std::map<int, std::vector<float>> a, b;  // per n
  std::vector<std::uint8_t> messages;      // enough for the largest md5 size
};

Inputs make_inputs(const Plan& plan) {
  Inputs in;
  std::mt19937 rng(2016);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int n : plan.matmul_n) {
    std::size_t nn = static_cast<std::size_t>(n) * n;
    auto& a = in.a[n];
    auto& b = in.b[n];
    a.resize(nn);
    b.resize(nn);
    for (auto& x : a) x = value(rng);
    for (auto& x : b) x = value(rng);
  }
  in.messages.resize(plan.md5_bytes.empty() ? 0 : plan.md5_bytes.back());
  for (auto& byte : in.messages) byte = static_cast<std::uint8_t>(rng());
  return in;
}

double relative_error(const std::vector<float>& c, const std::vector<float>& reference) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    double d = double(c[i]) - reference[i];
    diff += d * d;
    norm += double(reference[i]) * reference[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

struct Reference {
  std::map<int, std::vector<float>> c;  // per n
  std::vector<std::uint8_t> digests;    // of every message (md5 of a prefix is a prefix)
  std::map<std::pair<std::string, std::uint64_t>, double> time_s;  // (app, size)
};

void run_device(const std::string& id, ProbeTarget& target, const Plan& plan, const Inputs& in,
                bool is_reference, Reference* reference, ProbeResults& out) {
  for (int n : plan.matmul_n) {
    std::vector<float> c(static_cast<std::size_t>(n) * n);
    auto t = measure(plan.repeats, plan.point_budget_s, [&] {
      return target.matmul(n, in.a.at(n).data(), in.b.at(n).data(), c.data());
    });
    AppPoint row{"matmul", id, static_cast<std::uint64_t>(n), t.best, t.median, {}, {}, {}, true};
    if (is_reference) {
      reference->time_s[{"matmul", row.size}] = t.best;
      reference->c[n] = std::move(c);
      row.speedup_vs_cpu = 1.0;
    } else {
      row.rel_error = relative_error(c, reference->c.at(n));
      row.valid = *row.rel_error < kMatmulTolerance;
      row.speedup_vs_cpu = reference->time_s.at({"matmul", row.size}) / t.best;
    }
    out.apps.push_back(row);
  }
  for (std::uint64_t bytes : plan.md5_bytes) {
    std::size_t count = bytes / 64;
    std::vector<std::uint8_t> digests(count * 16);
    auto t = measure(plan.repeats, plan.point_budget_s,
                     [&] { return target.md5(count, in.messages.data(), digests.data()); });
    AppPoint row{"md5", id, bytes, t.best, t.median, {}, {}, {}, true};
    if (is_reference) {
      reference->time_s[{"md5", bytes}] = t.best;
      if (digests.size() > reference->digests.size()) reference->digests = digests;
      row.speedup_vs_cpu = 1.0;
    } else {
      std::uint64_t wrong = 0;
      for (std::size_t i = 0; i < count; ++i)
        wrong += std::memcmp(&digests[i * 16], &reference->digests[i * 16], 16) != 0;
      row.mismatches = wrong;
      row.valid = wrong == 0;
      row.speedup_vs_cpu = reference->time_s.at({"md5", bytes}) / t.best;
    }
    out.apps.push_back(row);
  }
}

void add_crossovers(const std::string& id, ProbeResults& out) {
  for (const char* app : {"matmul", "md5"}) {
    std::vector<std::uint64_t> sizes;
    std::vector<double> cpu, device;
    for (const auto& row : out.apps)
      if (row.app == app && row.device == id) {
        sizes.push_back(row.size);
        device.push_back(row.time_s);
        cpu.push_back(row.time_s * *row.speedup_vs_cpu);
      }
    if (!sizes.empty()) out.crossovers.push_back({app, id, crossover_size(sizes, cpu, device)});
  }
}

}  // namespace

void probe_apps(const std::vector<std::shared_ptr<Device>>& devices, const Plan& plan,
                const ProbeOptions& options, ProbeResults& out) {
  Inputs in = make_inputs(plan);
  Reference reference;
  bool cpu_listed = false;
  for (const auto& d : devices) cpu_listed |= d->info().kind == DeviceKind::Cpu;
  {
    if (options.progress) options.progress("cpu: matmul and md5 (the reference)");
    auto cpu = find_device("cpu");
    const auto details = device_details(cpu->info());
    if (details.contains("probe_matmul"))
      out.notes.push_back("cpu matmul: " + details["probe_matmul"].get<std::string>());
    auto target = cpu->make_probe_target();  // released before the devices run
    run_device(cpu->info().id, *target, plan, in, true, &reference, out);
  }
  if (!cpu_listed)
    out.notes.push_back("the CPU ran the applications too: it is the reference for the crossover");
  for (const auto& device : devices) {
    if (device->info().kind == DeviceKind::Cpu) continue;
    const std::string& id = device->info().id;
    if (options.progress) options.progress(fmt::format("{}: matmul and md5", id));
    auto target = device->make_probe_target();
    run_device(id, *target, plan, in, false, &reference, out);
    add_crossovers(id, out);
  }
  for (const auto& row : out.apps)
    if (!row.valid)
      out.notes.push_back(fmt::format("{} on {} at size {} does not match the CPU's result",
                                      row.app, row.device, row.size));
}

}  // namespace conveyor::probe
