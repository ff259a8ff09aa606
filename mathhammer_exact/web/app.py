"""The FastAPI application: the page at `/`, the JSON API under `/api/`, its description at `/openapi.json`.

Each question is validated by its schema (`schemas`), answered in a worker process under the
time and memory limits (`workers`), and sent as the CLI's JSON text. Every refusal is an HTTP
4xx (or 503 when busy) with ``{"error": "one line"}``, the line the CLI prints after ``error:``.
The server keeps nothing and writes no file.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from ..errors import MathhammerError
from . import answers
from .keys import in_keys
from .matchups import MatchupAnswer, MatchupQuery
from .questions import (
    AttackNeedAnswer,
    AttackNeedQuery,
    PlanAnswer,
    PlanQuery,
    SurviveAnswer,
    SurviveQuery,
    TurnAnswer,
    TurnQuery,
    UnitNeedAnswer,
    UnitNeedQuery,
)
from .schemas import (
    MAX_TEXT,
    ROLLS,
    AttackAnswer,
    AttackQuery,
    Catalogue,
    CompareAnswer,
    CompareQuery,
    ErrorAnswer,
    Situation,
    UnitAnswer,
    UnitQuery,
)
from .units import MAX_FOUND, ArmyAnswer, ArmyQuery, DatasheetAnswer, DatasheetQuery, FoundUnits
from .workers import LIGHT_WORKERS, Refused, Workers

#: path -> (request schema, answer schema, the answer's function) of the questions beyond attack, unit and compare
DECISIONS: dict[str, tuple[type[BaseModel], type[BaseModel], Callable[[Any], str]]] = {
    "/api/attack/need": (AttackNeedQuery, AttackNeedAnswer, answers.attack_need_answer),
    "/api/unit/need": (UnitNeedQuery, UnitNeedAnswer, answers.unit_need_answer),
    "/api/plan": (PlanQuery, PlanAnswer, answers.plan_answer),
    "/api/turn": (TurnQuery, TurnAnswer, answers.turn_answer),
    "/api/survive": (SurviveQuery, SurviveAnswer, answers.survive_answer),
    "/api/datasheet": (DatasheetQuery, DatasheetAnswer, answers.datasheet_answer),
    "/api/army": (ArmyQuery, ArmyAnswer, answers.army_answer),
    "/api/matchup": (MatchupQuery, MatchupAnswer, answers.matchup_answer),
}
TIME_LIMIT = 10.0  #: seconds one question may take
WORKERS = 2  #: worker processes for heavy questions
MEMORY_LIMIT = 2 * 2**30  #: bytes of address space for each worker
MAX_BODY = 64 * 1024  #: bytes in one request (a question is a few hundred)
BODY_TIME = 5.0  #: seconds the whole body of a request may take to arrive once its headers have
KEEP_ALIVE = 5  #: seconds an idle connection is kept open between requests
#: The page may load only what this server sends: no CDN, no inline script.
PAGE_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
REFUSALS: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorAnswer, "description": "A question the rules or the server's limits do not allow."},
    408: {"model": ErrorAnswer, "description": "The request's body did not arrive in time."},
    411: {"model": ErrorAnswer, "description": "The request did not say its length."},
    413: {"model": ErrorAnswer, "description": "The request is longer than a question can be."},
    500: {"model": ErrorAnswer, "description": "The program failed on this question (a bug: please report it)."},
    503: {"model": ErrorAnswer, "description": "Every worker stayed busy for the whole time limit, the question "
                                               "waited for the CPU three times its time limit, or the worker "
                                               "computing it was lost twice: try again."},
}


def _branch(part: Any) -> bool:
    """Whether a part of a problem's place is the type of a union's branch the value was tried as ('leader.function-
    after[...]', 'weapons.0.FiringQuery': a model's name; the request's own keys are all lower case)."""
    return "[" in str(part) or str(part)[:1].isupper()


def _where(error: Any) -> str:
    """Where in the request a problem is: its keys and places, without the branches of a union (`_branch`)."""
    return ".".join(str(part) for part in error["loc"] if part != "body" and not _branch(part)) or "request body"


def _one_line(exc: RequestValidationError) -> str:
    """The first problem with a request, as `where: what` (the CLI's one-line style); of a union's branches, the one
    that takes the value's type, and one whose problem is with a value given over one missing or not allowed (a
    unit's name that is a file: not 'weapon: Field required', the other branch's)."""
    errors = exc.errors()
    first = errors[0]
    if first["type"] == "json_invalid":
        error = first.get("ctx", {}).get("error", first["msg"])
        return f"the request body is not valid JSON: {error} (at character {first['loc'][-1]})"
    tried = [e for e in errors if any(str(part)[:1].isupper() for part in e["loc"])]  # as a union's models
    given = next((e for e in tried if e["type"] not in ("missing", "extra_forbidden")), None)
    where = _where(given or first)
    first = given or next((e for e in errors if _where(e) == where and not e["type"].endswith("_type")), first)
    others = len({_where(e) for e in errors}) - 1
    more = f" (and {others} more)" if others else ""
    return f"{where}: {first['msg'].removeprefix('Value error, ')}{more}"


def _key_given_twice(body: bytes) -> str | None:
    """The first key that one object of the JSON `body` gives twice, if any (None too where the body is not
    JSON: the endpoint's reader says so)."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                twice.append(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(body, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    return twice[0] if twice else None


def _unreadable(body: bytes) -> str:
    """Why a JSON reader gave up on `body`: nested thousands deep, or a number of thousands of digits (a trial's was
    said to be nested)."""
    try:
        json.loads(body)
    except RecursionError:
        return "the request body is not valid JSON: it is nested too deeply"
    except ValueError as exc:
        digits = re.search(r"value has (\d+) digits", str(exc))
        if digits:
            return (f"the request body is not valid JSON for a question: a number of {digits[1]} digits (at most "
                    f"{sys.get_int_max_str_digits()})")
    return "the request body is not valid JSON: it could not be read"


def create_app(workers: int = WORKERS, time_limit: float = TIME_LIMIT, memory_limit: int = MEMORY_LIMIT,
               light_workers: int = LIGHT_WORKERS) -> FastAPI:
    """The application, with `workers` heavy and `light_workers` light worker processes answering each
    question within `time_limit` seconds."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.workers = Workers(workers, time_limit, memory_limit, light_workers)
        await app.state.workers.start()
        try:
            yield
        finally:
            app.state.workers.close()

    app = FastAPI(
        title="mathhammer_exact", version="0.1.0", lifespan=lifespan,
        description="Exact Warhammer 40,000 attack probabilities (10th and 11th editions): every outcome, no sampling. "
                    "Answers have the shape of the `mathhammer` command's `--json` output.",
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN; the description is at /openapi.json
    )

    asked: dict[str, type[BaseModel]] = {"/api/attack": AttackQuery, "/api/unit": UnitQuery,
                                         "/api/compare": CompareQuery, **{p: q for p, (q, _, _) in DECISIONS.items()},
                                         **{f"/api/roll/{kind}": q for kind, q in ROLLS.items()}}

    @app.exception_handler(MathhammerError)
    async def refuse_input(request: Request, exc: MathhammerError) -> JSONResponse:
        return JSONResponse({"error": in_keys(str(exc), asked.get(request.url.path))}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def refuse_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _one_line(exc)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def refuse_http(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":  # FastAPI's, for a
            # body its JSON reader gave up on: not JSON a question can be, as documented
            return JSONResponse({"error": _unreadable(await request.body())}, status_code=422)
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    @app.middleware("http")
    async def bounded_body(request: Request, call_next: Callable[[Request], Any]) -> Response:
        """A question's body must say its length, be short and arrive in time: the server never waits for
        an unbounded body, nor holds a connection open for one that never comes."""
        if request.method in ("POST", "PUT", "PATCH") and request.url.path in asked:  # else no question's: routing
            # says 404 or 405 (a trial's POST /api/units read 411)
            length = request.headers.get("content-length")
            if length is None or not length.isdigit():
                return JSONResponse({"error": "a request body needs a Content-Length header"}, status_code=411)
            if int(length) > MAX_BODY:
                return JSONResponse({"error": f"a request body may have at most {MAX_BODY} bytes"}, status_code=413)
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind and kind != "application/json" and not kind.endswith("+json"):  # said, not 'not a dictionary'
                return JSONResponse({"error": f"a request body is JSON: send it as Content-Type: application/json, "
                                              f"not {kind}"}, status_code=415)
            try:
                body = await asyncio.wait_for(request.body(), BODY_TIME)  # read here, handed on to the endpoint
            except TimeoutError:
                return JSONResponse({"error": f"the request body did not arrive within {BODY_TIME:g} s"},
                                    status_code=408, headers={"Connection": "close"})
            if (twice := _key_given_twice(body)) is not None:  # a JSON reader would keep the last one silently
                return JSONResponse({"error": f"the request body gives the key {json.dumps(twice)} twice in one "
                                              "object: give it once"}, status_code=422)
        response: Response = await call_next(request)
        return response

    @app.exception_handler(Refused)
    async def refuse_query(request: Request, exc: Refused) -> JSONResponse:
        headers = {"Retry-After": "1"} if exc.status == 503 else None
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=headers)

    async def answer(request: Request, function: Callable[[Any], str], query: Any) -> Response:
        text = await request.app.state.workers.run(answers.answered, (function, query))
        return Response(text, media_type="application/json")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        html = files(__package__).joinpath("static", "index.html").read_text(encoding="utf-8")
        return HTMLResponse(html, headers={"Content-Security-Policy": PAGE_POLICY})

    @app.get("/api/catalogue", response_model=Catalogue)
    async def catalogue(request: Request) -> Catalogue | Response:
        """The datasheets, standard targets and named rules (for `with`) that questions may name."""
        return _only(request) or answers.catalogue()

    @app.get("/api/situation", response_model=dict[str, Any])
    async def situation(request: Request) -> dict[str, Any] | Response:
        """The fields of a question's `situation`, from which the page builds its controls: the JSON schema of
        `Situation` (each field's default, bounds, choices with their words, and help, in the declared order)."""
        return _only(request) or Situation.model_json_schema()

    @app.post("/api/attack", response_model=AttackAnswer, responses=REFUSALS)
    async def attack(query: AttackQuery, request: Request) -> Response:
        """Weapon profiles, written out, fired in turn at one target (`mathhammer attack`, with several weapons)."""
        return await answer(request, answers.attack_answer, query)

    @app.post("/api/unit", response_model=UnitAnswer, responses=REFUSALS)
    async def unit(query: UnitQuery, request: Request) -> Response:
        """A datasheet unit, by name, attacks with its whole loadout under named rules (`mathhammer unit`)."""
        return await answer(request, answers.unit_answer, query)

    @app.post("/api/compare", response_model=CompareAnswer, responses=REFUSALS)
    async def compare(query: CompareQuery, request: Request) -> Response:
        """Attack or unit questions side by side, the first the baseline (`mathhammer compare`)."""
        return await answer(request, answers.compare_answer, query)

    for path, (query_type, answer_type, function) in DECISIONS.items():
        app.post(path, response_model=answer_type, responses=REFUSALS, summary=path.removeprefix("/api/"),
                 description=query_type.__doc__ or "")(_endpoint(query_type, function, answer))

    @app.get("/api/units", response_model=FoundUnits, responses=REFUSALS)
    async def units(request: Request, q: str = Query(max_length=MAX_TEXT, description="Words of a unit's name "
                                                                                      "(or its faction's)."),
                    limit: int = Query(20, ge=1, le=MAX_FOUND),
                    edition: str | None = Query(None, max_length=MAX_TEXT, description="The edition whose units to "
                                                "search: 10e or 11e (default: the player's).")) -> Response:
        """The units of the rules data and of the server's BSData index whose names hold the words typed, as
        players type them (a plural for a singular, the faction's name), the unit of that name first; with
        their factions and points (`mathhammer datasheets --search`)."""
        return _only(request) or await answer(request, answers.found_units, (q, limit, edition))

    for kind, query_type in ROLLS.items():
        app.post(f"/api/roll/{kind}", response_model=query_type.answer, responses=REFUSALS, summary=f"Roll {kind}",
                 description=query_type.__doc__ or "")(_endpoint(query_type, answers.roll_answer, answer))

    app.mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static")
    return app


def _only(request: Request) -> Response | None:
    """A refusal of a query parameter the endpoint does not declare, as a request's unknown key is refused (a trial's
    'foo=1' was ignored); None where there is none."""
    allowed = [param.alias for param in request.scope["route"].dependant.query_params]
    unknown = sorted(set(request.query_params) - set(allowed))
    if not unknown:
        return None
    takes = f"allowed: {', '.join(allowed)}" if allowed else "it takes none"
    return JSONResponse({"error": f"{unknown[0]}: unknown query parameter; {takes}"}, status_code=422)


def _endpoint(query_type: type[BaseModel], function: Callable[[Any], str],
              answer: Callable[..., Any]) -> Callable[..., Any]:
    """The endpoint of one question answered by `function` in a worker; its `query` parameter is typed with the
    question's schema."""

    async def endpoint(query: BaseModel, request: Request) -> Response:
        return await answer(request, function, query)

    endpoint.__annotations__ = {"query": query_type, "request": Request, "return": Response}
    endpoint.__name__ = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", query_type.__name__.removesuffix("Query")).lower()
    return endpoint
