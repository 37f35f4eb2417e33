# A short judge prompt of this project's own, in the shape of NeMo Gym's prompts.py (the two constants this server
# reads); the tests use it. NeMo Gym's own prompts.py is fetched on first use (see README.md).

SQL_JUDGE_SYSTEM_MESSAGE = """You compare two SQL queries. Decide whether both answer the question the same way on the given schema.
End with [[A=B]] if they are equivalent, [[A!=B]] if they are not."""

SQL_JUDGE_PROMPT_TEMPLATE = """Dialect: {sql_dialect}
Schema:
{sql_context}
Question: {sql_prompt}
Query A:
{first_answer}
Query B:
{second_answer}"""
