"""`mathhammer serve`: a JSON API (with its OpenAPI description) and a one-page web app.

The API asks the CLI's questions (attack, unit, roll, compare) and answers in the CLI's JSON
shape (`present.report`), each answer computed in a worker process under a time limit.
Needs the ``[web]`` extra (FastAPI and uvicorn).
"""
