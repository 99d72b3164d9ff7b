#include "common/chapter_main.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/chooser.hpp"
#include "common/cuda_check.hpp"
#include "common/gemm_resources.hpp"
#include "common/gemm_shape.hpp"
#include "common/host_matrix.hpp"
#include "common/launch_record.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

namespace tutorial {

namespace {

// A row's timing: `work` (FLOPs or bytes) per run, the rate in G`unit`, and the % of the
// ceiling timed side by side with it.
void set_timing(ReportRow& row, const TimingStats& t, double work, const std::string& unit,
                const TimingStats& ceiling, const std::string& ceiling_name) {
  row.median_ms = t.median_ms;
  row.min_ms = t.min_ms;
  row.max_ms = t.max_ms;
  row.rate = work / (t.median_ms * 1e-3) / 1e9;
  row.rate_unit = unit;
  row.pct_of_ceiling = 100.0 * ceiling.median_ms / t.median_ms;
  row.ceiling = ceiling_name;
}

// A kernel that refused the size, or a block this GPU cannot hold (KernelDoesNotFit: the
// limit is named): a skipped row, and the other kernels still run.
ReportRow skipped_row(const std::string& chapter, const std::string& name,
                      const UnsupportedShape& why) {
  ReportRow row;
  row.chapter = chapter;
  row.kernel = name;
  row.status = std::string("skipped: ") + why.what();
  return row;
}

// The first half of a kernel's measurement, the same for every chapter: poison the output,
// launch once (a kernel that refuses the shape, or a block this GPU cannot hold, becomes a
// skipped row and the other kernels still run), read the occupancy of that launch and check
// the result (`check` returns the row's status). The kernels that ran are then timed together
// with the ceiling (time_side_by_side).
ReportRow check_kernel(const std::string& row_chapter, const std::string& name,
                       const std::function<void()>& launch, const std::function<void()>& poison,
                       const std::function<std::string()>& check, const DeviceInfo& device) {
  poison();
  const long before = launch_count();
  try {
    launch();
  } catch (const UnsupportedShape& e) {
    return skipped_row(row_chapter, name, e);
  }
  device_synchronize();
  ReportRow row;
  row.chapter = row_chapter;
  row.kernel = name;
  row.status = check();
  // A library call (cuBLAS) keeps no launch of its own through launch(): no kernel of ours to
  // report on (the record's latest would be another row's, or empty in a fresh process).
  if (launch_kept_since(before)) {
    const Occupancy occ = occupancy_of_first_launch_since(before, device);
    row.occupancy = occ.occupancy;
    row.limiter = to_string(occ.limiter);
  }
  return row;
}

// How long the GPU is kept busy before anything is timed: long enough for its clocks to settle
// (a run of a few microseconds timed right after the process starts ran up to 13% slower
// than the same run after other kernels had kept the GPU busy: 05_double_buffer/lab/LOG.md).
constexpr double kWarmupMs = 200.0;
// Short runs get more rounds than --iters, up to this much timed work or kMaxRounds rounds:
// runs of a few microseconds vary by several percent from one to the next.
constexpr double kTimedMs = 100.0;
constexpr int kMaxRounds = 201;

// The ceiling and every kernel that ran, timed side by side in interleaved rounds
// (time_gpu_interleaved): medians over --iters rounds (more where a round is short, up to
// kTimedMs of timed work), all measured at the same clocks.
// Returns the ceiling's timing; `timed(i, t)` receives kernel i's.
TimingStats time_side_by_side(const std::function<void()>& ceiling,
                              const std::vector<std::function<void()>>& launches, int iters,
                              const std::function<void(size_t, const TimingStats&)>& timed) {
  std::vector<std::function<void()>> works = {ceiling};
  works.insert(works.end(), launches.begin(), launches.end());
  TimingOptions options{2, iters, true, kWarmupMs};
  options.timed_ms = kTimedMs;
  options.max_repetitions = kMaxRounds;
  const std::vector<TimingStats> t = time_gpu_interleaved(works, options);
  for (size_t i = 0; i < launches.size(); ++i) timed(i, t[i + 1]);
  return t[0];
}

std::string usage_with_kernels(const std::string& program, const CliOptions& defaults,
                               const std::vector<std::string>& kernel_names) {
  std::string text = usage(program, defaults);
  if (kernel_names.empty()) return text;
  text += "kernels (--kernel PREFIX runs those whose names start with PREFIX):\n";
  for (const std::string& name : kernel_names) text += "  " + name + "\n";
  return text;
}

}  // namespace

bool kernel_selected(const std::string& name, const std::vector<std::string>& prefixes) {
  if (prefixes.empty()) return true;
  for (const std::string& prefix : prefixes)
    if (name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

void check_kernel_prefixes(const std::vector<std::string>& prefixes,
                           const std::vector<std::string>& names) {
  for (const std::string& prefix : prefixes) {
    bool found = false;
    for (const std::string& name : names) found = found || kernel_selected(name, {prefix});
    if (found) continue;
    std::string message = "--kernel '" + prefix + "' is the start of no kernel's name; ";
    if (names.empty()) throw CliError(message + "this program has no kernels to choose from");
    message += "the kernels are:";
    for (const std::string& name : names) message += "\n  " + name;
    throw CliError(message);
  }
}

int guarded_main(int argc, char** argv, const CliOptions& defaults,
                 const std::vector<std::string>& kernel_names,
                 const std::function<int(const CliOptions&, const DeviceInfo&)>& body) {
  const std::string program = argc > 0 ? argv[0] : "chapter";
  CliOptions options;
  try {
    // Everything that needs no GPU first: flags, sizes (parse_cli), the kernel selection.
    options = parse_cli(argc, argv, defaults);
    if (!options.help) check_kernel_prefixes(options.kernels, kernel_names);
    if (options.choose == "estimate") set_choose_by(ChooseBy::Estimate);
    if (options.choose == "measure") set_choose_by(ChooseBy::Measure);
    if (options.print_choices) set_print_choices(true);
  } catch (const CliError& e) {
    std::cerr << "error: " << e.what() << "\n"
              << "(" << program << " --help lists the options)\n";
    return kExitUsage;
  }
  if (options.help) {
    std::cout << usage_with_kernels(program, defaults, kernel_names);
    return kExitOk;
  }
  set_preferred_carveout(options.carveout);
  std::string why;
  if (cuda_device_count(&why) == 0) {
    std::cerr << "error: " << why << ".\n"
              << "This program times kernels on an NVIDIA GPU. Without one, `make check` still "
                 "builds everything, runs the host tests, and runs every kernel test on the CPU "
                 "backend (the same kernels on the CPU, correctness only: "
                 "common/cpu_backend/README.md).\n";
    return kExitNoDevice;
  }
  try {
    return body(options, query_device(0));
  } catch (const UnsupportedShape& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
}

ReportHeader make_header(const DeviceInfo& device, const std::string& problem,
                         const std::string& shape) {
  ReportHeader h;
  h.problem = problem;
  h.gpu = device.name;
  h.driver = version_string(device.driver_version);
  h.runtime = version_string(device.runtime_version);
  h.date = utc_timestamp();
  h.shape = shape;
  h.copy_bandwidth_gbs = measure_copy_bandwidth_gbs();
  h.fp32_peak_gflops = device.fp32_peak_gflops();
  return h;
}

Occupancy occupancy_of_first_launch_since(long count, const DeviceInfo& device) {
  const LaunchRecord& launch = first_launch_since(count);
  const KernelResources resources =
      kernel_resources(launch.kernel, launch.threads_per_block(), launch.dynamic_smem);
  return compute_occupancy(resources, device.sm);
}

int run_gemm_chapter(const std::string& chapter, const std::vector<GemmKernel>& all_kernels,
                     const CliOptions& o, const DeviceInfo& device, ResourcesTable resources) {
  const std::vector<GemmKernel> kernels = selected_kernels(all_kernels, o);
  const int M = o.m, N = o.n, K = o.k;
  const std::string shape =
      "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
      (o.carveout >= 0 ? ", carveout " + std::to_string(o.carveout) + "% shared" : "");
  std::cerr << "[" << chapter << "] " << device.name << ", " << shape << "\n";
  // Refuse what cannot run before allocating anything (at --size 100000 the host matrices
  // alone would be 80 GB): sizes the kernels cannot index, then this GPU's free memory.
  check_gemm_shape(chapter, M, N, K);
  require_device_memory((size_t(M) * K + size_t(K) * N + 2 * size_t(M) * N) * sizeof(float),
                        "A, B, C and cuBLAS's C");
  if (resources == ResourcesTable::On)
    print_gemm_resources(o.format == OutputFormat::Table ? std::cout : std::cerr, device, kernels);
  ReportHeader header = make_header(device, to_string(Problem::Gemm), shape);
  const double flops = gemm_flops(M, N, K);

  GemmProblem p(M, N, K, o.seed);
  CublasHandle cublas;
  DeviceBuffer<float> dRef(size_t(M) * N);
  dRef.poison();
  cublas_sgemm(cublas.get(), p.dA.data(), p.dB.data(), dRef.data(), M, N, K);
  const std::vector<float> reference = dRef.download();
  const double compulsory_ai = flops / gemm_compulsory_bytes(M, N, K);

  bool all_ok = true;
  auto check = [&]() -> std::string {
    if (!o.check) return "not checked";
    const std::vector<float> got = p.dC.download();
    const CompareResult cmp = compare(got.data(), reference.data(), M, N, Tolerance::for_gemm(K));
    all_ok = all_ok && cmp.ok();
    return cmp.ok() ? "ok" : "WRONG: " + cmp.summary();
  };
  // Each kernel launched and checked once, then those that ran timed side by side with cuBLAS.
  std::vector<ReportRow> rows(1);
  std::vector<double> intensities(1, compulsory_ai);
  std::vector<size_t> timed_rows;
  std::vector<std::function<void()>> launches;
  for (const GemmKernel& kernel : kernels) {
    std::cerr << "[" << chapter << "] " << kernel.name << " (" << shape << ")\n";
    auto launch = [&kernel, &p, M, N, K] {
      kernel.launch(p.dA.data(), p.dB.data(), p.dC.data(), M, N, K);
    };
    rows.push_back(check_kernel(chapter, kernel.name, launch, [&] { p.dC.poison(); }, check,
                                device));
    intensities.push_back(kernel.intensity ? kernel.intensity(M, N, K) : compulsory_ai);
    if (rows.back().status.rfind("skipped", 0) != 0) {
      timed_rows.push_back(rows.size() - 1);
      launches.push_back(launch);
    }
  }
  std::cerr << "[" << chapter << "] timing cuBLAS and " << launches.size()
            << " kernel(s) side by side\n";
  auto set_gemm_timing = [&](size_t i, const TimingStats& t, const TimingStats& ceiling) {
    set_timing(rows[i], t, flops, "GFLOP/s", ceiling, "cuBLAS");
    rows[i].intensity = intensities[i];
    rows[i].pct_of_roofline_model = 100.0 * rows[i].rate /
        roofline_gflops(intensities[i], header.copy_bandwidth_gbs, header.fp32_peak_gflops);
  };
  std::vector<TimingStats> kernel_times(launches.size());
  const TimingStats cublas_time = time_side_by_side(
      [&] { cublas_sgemm(cublas.get(), p.dA.data(), p.dB.data(), p.dC.data(), M, N, K); },
      launches, o.iters, [&](size_t i, const TimingStats& t) { kernel_times[i] = t; });
  rows[0].chapter = "ceiling";
  rows[0].kernel = "cuBLAS SGEMM";
  set_gemm_timing(0, cublas_time, cublas_time);
  for (size_t i = 0; i < launches.size(); ++i)
    set_gemm_timing(timed_rows[i], kernel_times[i], cublas_time);
  print_report(std::cout, header, rows, o.format);
  return all_ok ? kExitOk : kExitFailure;
}

int run_transpose_chapter(const std::string& chapter, const std::vector<TransposeKernel>& copies,
                          const std::vector<TransposeKernel>& kernels, const CliOptions& o,
                          const DeviceInfo& device) {
  const std::vector<TransposeKernel> picked_copies = selected_kernels(copies, o);
  const std::vector<TransposeKernel> picked = selected_kernels(kernels, o);
  const int rows = o.m, cols = o.n;
  const double bytes = transpose_bytes(rows, cols);
  std::ostringstream shape;
  shape << rows << "x" << cols << " floats (out " << cols << "x" << rows << "), " << std::fixed
        << std::setprecision(1) << bytes / 1e6 << " MB moved";
  if (o.carveout >= 0) shape << ", carveout " << o.carveout << "% shared";
  std::cerr << "[" << chapter << "] " << device.name << ", " << shape.str() << "\n";
  check_transpose_size(chapter, rows, cols);
  const ReportHeader header = make_header(device, to_string(Problem::Transpose), shape.str());

  const HostMatrix in = random_matrix(rows, cols, o.seed);
  HostMatrix want;
  if (o.check) {
    want = HostMatrix(cols, rows);
    cpu_transpose(in.data(), want.data(), rows, cols);
  }
  DeviceBuffer<float> dIn(in.values), dOut(size_t(rows) * cols);

  // `expected` is what dOut must hold afterwards: the input for a copy, its transpose else.
  bool all_ok = true;
  auto check = [&](const HostMatrix& expected) -> std::string {
    if (!o.check) return "not checked";
    const std::vector<float> got = dOut.download();
    const CompareResult cmp =
        compare(got.data(), expected.data(), expected.rows, expected.cols, Tolerance::exact());
    all_ok = all_ok && cmp.ok();
    return cmp.ok() ? "ok" : "WRONG: " + cmp.summary();
  };

  // The ceiling: the driver's own device-to-device copy of the same bytes.
  auto memcpy_launch = [&] { copy_device_to_device(dOut.data(), dIn.data(), dIn.bytes()); };
  std::vector<ReportRow> report(1);
  dOut.poison();
  memcpy_launch();
  report[0].chapter = "ceiling";
  report[0].kernel = "cudaMemcpy D2D";
  report[0].status = check(in);

  // Each kernel launched and checked once, then those that ran timed side by side with the copy.
  std::vector<size_t> timed_rows;
  std::vector<std::function<void()>> launches;
  auto check_one = [&](const std::string& row_chapter, const TransposeKernel& kernel,
                       const HostMatrix& expected) {
    std::cerr << "[" << chapter << "] " << kernel.name << "\n";
    auto launch = [&kernel, &dIn, &dOut, rows, cols] {
      kernel.launch(dIn.data(), dOut.data(), rows, cols);
    };
    report.push_back(check_kernel(row_chapter, kernel.name, launch, [&] { dOut.poison(); },
                                  [&] { return check(expected); }, device));
    if (report.back().status.rfind("skipped", 0) != 0) {
      timed_rows.push_back(report.size() - 1);
      launches.push_back(launch);
    }
  };
  for (const TransposeKernel& copy : picked_copies) check_one("ceiling", copy, in);
  for (const TransposeKernel& kernel : picked) check_one(chapter, kernel, want);

  std::vector<TimingStats> kernel_times(launches.size());
  const TimingStats memcpy_time = time_side_by_side(
      memcpy_launch, launches, o.iters,
      [&](size_t i, const TimingStats& t) { kernel_times[i] = t; });
  set_timing(report[0], memcpy_time, bytes, "GB/s", memcpy_time, "cudaMemcpy D2D");
  for (size_t i = 0; i < launches.size(); ++i)
    set_timing(report[timed_rows[i]], kernel_times[i], bytes, "GB/s", memcpy_time,
               "cudaMemcpy D2D");

  print_report(std::cout, header, report, o.format);
  return all_ok ? kExitOk : kExitFailure;
}

int gemm_chapter_main(int argc, char** argv, const std::string& chapter,
                      const std::vector<GemmKernel>& kernels, ResourcesTable resources) {
  return guarded_main(argc, argv, {}, names_of(kernels),
                      [&](const CliOptions& o, const DeviceInfo& device) {
    return run_gemm_chapter(chapter, kernels, o, device, resources);
  });
}

}  // namespace tutorial
