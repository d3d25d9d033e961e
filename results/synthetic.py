"""Synthetic result documents, for tests, benchmarks and the scale dataset (seed_scale).

The numbers are plausible but made up: they are never shown as measurements.
"""

import random

GB = 10**9

FOUR_CORNERS = [
    # (test id, block size, queue depth, IOPS of the compressible run)
    ("randread-4k-qd3", 4096, 3, 12000.0),
    ("randwrite-4k-qd3-8g", 4096, 3, 40000.0),
    ("randwrite-4k-qd32-8g", 4096, 32, 60000.0),
    ("seqread-128k-qd1", 131072, 1, 3500.0),
    ("seqwrite-128k-qd1", 131072, 1, 2000.0),
]
PERCENTILES = ["1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99"]


def measured_document(
    *,
    seed: int = 1,
    manufacturer: str = "Maker",
    model: str = "Model X",
    capacity_bytes: int = 256 * GB,
    series_seconds: int = 2000,
) -> dict:
    """A complete loadgen-style document: the four corners in both data patterns and two
    consistency series. The numbers are made up for tests; they never reach a page."""
    rng = random.Random(seed)
    results = []
    for test, block_size, queue_depth, base_iops in FOUR_CORNERS:
        for pattern, factor in (("compressible", 1.0), ("incompressible", 0.7)):
            iops = round(base_iops * factor * rng.uniform(0.95, 1.05), 3)
            duration_ns = 180 * 10**9
            io_count = int(iops * 180)
            mean = queue_depth / iops * 1e9
            percentiles = {p: int(mean * (0.5 + i * 0.15)) for i, p in enumerate(PERCENTILES)}
            results.append(
                {
                    "test": test,
                    "pattern": pattern,
                    "block_size": block_size,
                    "queue_depth": queue_depth,
                    "span_bytes": 8 * 2**30,
                    "duration_ns": duration_ns,
                    "io_count": io_count,
                    "bytes": io_count * block_size,
                    "bytes_per_second": iops * block_size,
                    "iops": iops,
                    "latency_ns": {
                        "mean": mean,
                        "stddev": mean / 3,
                        "min": int(mean * 0.2),
                        "max": int(mean * 40),
                        "percentiles": percentiles,
                    },
                }
            )
    consistency = [
        {
            "test": "consistency-4k-qd32",
            "pattern": "incompressible",
            "spare_area_percent": spare,
            "block_size": 4096,
            "queue_depth": 32,
            "iops": [
                rng.randint(3000, 90000) if t < 300 else rng.randint(3000, 9000)
                for t in range(series_seconds)
            ],
        }
        for spare in (0, 25)
    ]
    return {
        "schema_version": 1,
        "status": "complete",
        "source": {"kind": "measured"},
        "tool": {
            "name": "loadgen",
            "version": "0.1.0",
            "engine": "io_uring",
            "command_line": "loadgen run --suite desktop-2011 --target /dev/sdb",
        },
        "started_at": "2026-11-21T10:00:00Z",
        "finished_at": "2026-11-21T11:30:00Z",
        "drive": {
            "manufacturer": manufacturer,
            "model": model,
            "capacity_bytes": capacity_bytes,
            "firmware": "1.0",
        },
        "drive_state": "preconditioned",
        "bench": {"cpu": "Test CPU", "os": "Linux 6.1", "chipset": "Test chipset"},
        "host": {"hostname": "bench1", "kernel": "6.1.0", "cpu": "Test CPU", "cpu_count": 8},
        "target": {
            "path": "/dev/sdb",
            "kind": "block",
            "capacity_bytes": capacity_bytes,
            "rotational": False,
            "logical_block_size": 512,
            "physical_block_size": 4096,
        },
        "parameters": {
            "suite": {"name": "desktop-2011", "version": 1},
            "seed": seed,
            "engine": "io_uring",
            "direct": True,
            "duration_scale": 1.0,
            "patterns": ["compressible", "incompressible"],
            "spare_area_percent": [0, 25],
        },
        "results": results,
        "consistency": consistency,
    }
