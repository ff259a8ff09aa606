"""`mathhammer serve`: the web page and JSON API on a local port (needs the [web] extra)."""

from __future__ import annotations

import click

from ..errors import MathhammerError
from .command import Command


@click.command(cls=Command)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; the default answers this machine only.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes computing heavy answers at the same time.")
@click.option("--light-workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes for light questions (dice tests, a unit's shooting), which never wait "
                   "behind heavy ones.")
@click.option("--time-limit", default=10.0, show_default=True, type=click.FloatRange(0.1, 600),
              help="Seconds of CPU time one question may compute before it is refused.")
@click.option("--memory-limit", default=2048, show_default=True, type=click.IntRange(256, 1 << 20),
              help="MiB of memory one worker may use.")
def serve(host: str, port: int, workers: int, light_workers: int, time_limit: float, memory_limit: int) -> None:
    """Serve the web page (at /) and the JSON API (described at /openapi.json) until Ctrl-C.

    Every question runs in a worker process under the time and memory limits; the server writes no file."""
    try:
        from ..web.app import create_app
        from ..web.server import listen, run
    except ImportError:
        raise MathhammerError("the server needs the [web] extra: pip install 'mathhammer_exact[web]'") from None
    app = create_app(workers=workers, time_limit=time_limit, memory_limit=memory_limit << 20,
                     light_workers=light_workers)
    with listen(host, port) as sock:
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"mathhammer: serving http://{shown}:{bound}/ (Ctrl-C stops)", err=True)
        run(app, sock)
