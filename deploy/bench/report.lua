-- wrk reporter for `make bench`: one line "requests_per_s p50_ms p99_ms errors".
done = function(summary, latency, requests)
  local secs = summary.duration / 1e6
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format("%.1f %.2f %.2f %d\n",
    summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors))
end
