"""``ragkit serve``: an OpenAI-compatible knowledge-base server (FastAPI; ``pip install 'ragkit[server]'``).

Nothing here is imported by ``import ragkit``; ``ragkit.server.app.create_app`` builds the app.
"""
