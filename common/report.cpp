#include "common/report.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace tutorial {

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string json_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04x", c);
          out += hex;
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {

std::string fixed(double value, int digits, const char* suffix = "") {
  if (value < 0) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value << suffix;
  return s.str();
}

std::string json_number(double value, int digits) {
  if (value < 0) return "null";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

void print_table(std::ostream& out, const ReportHeader& h, const std::vector<ReportRow>& rows) {
  out << "GPU: " << h.gpu << " (driver " << h.driver << ", runtime " << h.runtime << ")  " << h.date
      << "\n"
      << "Problem: " << h.shape << "   measured copy bandwidth " << fixed(h.copy_bandwidth_gbs, 0)
      << " GB/s, FP32 peak " << fixed(h.fp32_peak_gflops, 0) << " GFLOP/s\n\n";
  // The roofline columns are the model's (the executable has no profile), and say so.
  const std::vector<std::string> titles = {"kernel",         "time ms",
                                           "rate",           "% ceiling",
                                           "FLOP/B (model)", "% roofline (model)",
                                           "occupancy",      "status"};
  std::vector<std::vector<std::string>> cells;
  for (const ReportRow& r : rows) {
    std::string ceiling = r.pct_of_ceiling < 0 ? "-" : fixed(r.pct_of_ceiling, 1, "% ") + r.ceiling;
    std::string occ = r.occupancy < 0 ? "-" : fixed(100 * r.occupancy, 0, "%") +
                                                  (r.limiter.empty() ? "" : " (" + r.limiter + ")");
    cells.push_back({r.kernel, fixed(r.median_ms, 3), fixed(r.rate, 0, " ") + r.rate_unit, ceiling,
                     fixed(r.intensity, 2), fixed(r.pct_of_roofline_model, 1, "%"), occ, r.status});
  }
  print_aligned(out, titles, cells, {0, titles.size() - 1});  // the kernel and its status
}

void print_aligned(std::ostream& out, const std::vector<std::string>& titles,
                   const std::vector<std::vector<std::string>>& cells,
                   const std::vector<size_t>& left) {
  std::vector<size_t> width(titles.size());
  for (size_t c = 0; c < titles.size(); ++c) {
    width[c] = titles[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      const bool is_left = std::find(left.begin(), left.end(), c) != left.end();
      out << (c ? "  " : "") << (is_left ? std::left : std::right) << std::setw(int(width[c]))
          << row[c];
    }
    out << std::right << "\n";
  };
  line(titles);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : cells) line(row);
}

void print_csv(std::ostream& out, const ReportHeader& h, const std::vector<ReportRow>& rows) {
  out << "problem,gpu,driver,runtime,date,shape,chapter,kernel,status,median_ms,min_ms,max_ms,"
         "rate,rate_unit,pct_of_ceiling,ceiling,intensity,pct_of_roofline_model,occupancy,limiter,"
         "copy_bandwidth_gbs,fp32_peak_gflops\n";
  for (const ReportRow& r : rows) {
    out << csv_field(h.problem) << "," << csv_field(h.gpu) << "," << h.driver << ","
        << h.runtime << "," << h.date << "," << csv_field(h.shape) << "," << r.chapter << "," << csv_field(r.kernel) << ","
        << csv_field(r.status) << "," << fixed(r.median_ms, 4) << "," << fixed(r.min_ms, 4) << ","
        << fixed(r.max_ms, 4) << "," << fixed(r.rate, 1) << "," << r.rate_unit << ","
        << fixed(r.pct_of_ceiling, 2) << "," << r.ceiling << "," << fixed(r.intensity, 3) << ","
        << fixed(r.pct_of_roofline_model, 2) << "," << fixed(r.occupancy, 3) << "," << r.limiter << ","
        << fixed(h.copy_bandwidth_gbs, 1) << "," << fixed(h.fp32_peak_gflops, 1) << "\n";
  }
}

void print_json(std::ostream& out, const ReportHeader& h, const std::vector<ReportRow>& rows) {
  out << "{\n  \"problem\": \"" << json_escape(h.problem) << "\",\n  \"gpu\": \""
      << json_escape(h.gpu) << "\",\n  \"driver\": \"" << h.driver
      << "\",\n  \"runtime\": \"" << h.runtime << "\",\n  \"date\": \"" << h.date
      << "\",\n  \"shape\": \"" << json_escape(h.shape)
      << "\",\n  \"copy_bandwidth_gbs\": " << json_number(h.copy_bandwidth_gbs, 1)
      << ",\n  \"fp32_peak_gflops\": " << json_number(h.fp32_peak_gflops, 1) << ",\n  \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& r = rows[i];
    out << (i ? "," : "") << "\n    {\"chapter\": \"" << json_escape(r.chapter) << "\", \"kernel\": \""
        << json_escape(r.kernel) << "\", \"status\": \"" << json_escape(r.status)
        << "\", \"median_ms\": " << json_number(r.median_ms, 4)
        << ", \"min_ms\": " << json_number(r.min_ms, 4) << ", \"max_ms\": " << json_number(r.max_ms, 4)
        << ", \"rate\": " << json_number(r.rate, 1) << ", \"rate_unit\": \"" << r.rate_unit
        << "\", \"pct_of_ceiling\": " << json_number(r.pct_of_ceiling, 2) << ", \"ceiling\": \""
        << json_escape(r.ceiling) << "\", \"intensity\": " << json_number(r.intensity, 3)
        << ", \"pct_of_roofline_model\": " << json_number(r.pct_of_roofline_model, 2)
        << ", \"occupancy\": " << json_number(r.occupancy, 3) << ", \"limiter\": \""
        << json_escape(r.limiter) << "\"}";
  }
  out << "\n  ]\n}\n";
}

void print_report(std::ostream& out, const ReportHeader& h, const std::vector<ReportRow>& rows,
                  OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: print_table(out, h, rows); break;
    case OutputFormat::Csv: print_csv(out, h, rows); break;
    case OutputFormat::Json: print_json(out, h, rows); break;
  }
}

}  // namespace tutorial
