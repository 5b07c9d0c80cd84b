"""Fixtures shared by integration modules: the real `mirage up` of test_up_stack."""

from tests.integration.test_up_stack import up  # noqa: F401
