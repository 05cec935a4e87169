"""The evaluation harness's judge prompts (`emem.eval.prompts`). They live here, not in
`emem.prompts`, so editing a judge never changes the prompt-set hash on a library answer."""

JUDGE_PROMPTS = __name__
"""The package to pass to `emem.prompting.load_prompt` for a judge template."""
