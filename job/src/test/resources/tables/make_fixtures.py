"""Writes float16.parquet, the Parquet file pyarrow makes of a table with half-precision columns.

Spark 3.5's Parquet reader (parquet-mr 1.13) does not know the FLOAT16 logical type that pyarrow writes for
them, so such a file cannot be written from the test's own class path. Made with pyarrow 25.0.1:

    python3 job/src/test/resources/tables/make_fixtures.py
"""
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

here = os.path.dirname(os.path.abspath(__file__))
table = pa.table({
    "label": pa.array([0, 1, 0, 1, 0, 1, 0, 1], pa.int32()),
    "a": pa.array(np.arange(8, dtype=np.float16)),
    "b": pa.array(np.arange(8, dtype=np.float16)),
})
pq.write_table(table, os.path.join(here, "float16.parquet"))
