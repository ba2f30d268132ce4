"""The ceiling the API is measured against: a bare Flask app that answers a JSON
body with the same JSON, served by gunicorn exactly as `referee serve` is."""

from flask import Flask, jsonify, request

app = Flask("echo")


@app.post("/echo")
def echo():
    return jsonify(request.get_json()), 201
