"""Lanes: provider (anthropic, openai, stub) x surface (api, cli). One file a lane, one base class."""
