"""Assembly: from the ranked candidates to the delivered working set.

select (MMR, floor, budget) -> expand (``--expand`` neighbours) -> pack (shortened forms,
``compress``) -> hydrate (the text, read from the files) -> layout (reading order) ->
explain; ``workingset`` runs these at one selection budget and ``deliver`` picks the
budget whose rendered output fits.
"""
