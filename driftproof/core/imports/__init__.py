"""Importers: another tool's already-parsed results in, a sealed ``DECLARED`` receipt out. Pure.

One module per source (``caliper``, ``plugin_eval``, ``skill_creator``, ``promptfoo``, ``nvidia_card``), each a
function of `SourceDoc` values (the name, the digests and the parsed JSON a shell read) that returns a `Receipt`
or raises `driftproof.core.fields.Refusal` naming the document and the field. ``common`` builds what they share:
the source record, the empty arm, the counts, the receipt. No module here reads a file or a clock.
"""
