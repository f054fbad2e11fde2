"""``python -m benchmarks`` — see :mod:`benchmarks.run`."""

from .run import main

raise SystemExit(main())
