"""The web table: people play any registered game against bots and each other.

``python -m cardrl.web`` serves it (``--help`` for options); ``cardrl.web.app.create_app``
builds the ASGI app. The server holds every engine state and checks every
move; a browser only ever receives its own seat's view.
"""
