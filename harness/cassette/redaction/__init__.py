"""Secrets in recorded Messages API traffic, found on decoded values and redacted in place.

    checks        entropy, placeholders, credential-like names and values
    rules         the shapes of secret, each with the public rule sets it was checked against
    finders       the rules no single regex expresses: PEM blocks, cookies, URLs, NAME = value
    find          RuleSet, find_secrets, pair_secrets (a value under its key), literal and user rules
    views         a decoded text with a map back to its source (escapes, stream fragments)
    decode        explode: JSON walked, SSE reassembled per content block, escapes and base64 decoded
    redact        Redactor: keyed placeholders written back in place; fail closed (RedactionError)
    config        the key, a user's rules file, credential-named environment variables
    yaml_scalars  every scalar of a YAML text with the line of each character (for the scanner)

``harness.cassette.scrub`` (what a cassette keeps) and ``harness.cassette.scan`` (the
scanner) are the two callers. Nothing here imports the rest of the harness.
"""
