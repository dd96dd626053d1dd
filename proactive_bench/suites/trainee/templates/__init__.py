"""The shipped templates: importing this package registers each in ``TEMPLATES`` (one module per template)."""

import proactive_bench.suites.trainee.templates.ad_campaign  # noqa: F401  (registers on import)
import proactive_bench.suites.trainee.templates.campaign_split  # noqa: F401
import proactive_bench.suites.trainee.templates.contract_fill  # noqa: F401
import proactive_bench.suites.trainee.templates.data_completion  # noqa: F401
import proactive_bench.suites.trainee.templates.event_planning  # noqa: F401
import proactive_bench.suites.trainee.templates.expense_review  # noqa: F401
import proactive_bench.suites.trainee.templates.incident_drill  # noqa: F401
import proactive_bench.suites.trainee.templates.launch_notice  # noqa: F401
import proactive_bench.suites.trainee.templates.meeting_attend  # noqa: F401
import proactive_bench.suites.trainee.templates.price_backfill  # noqa: F401
import proactive_bench.suites.trainee.templates.report_filing  # noqa: F401
import proactive_bench.suites.trainee.templates.stock_reorder  # noqa: F401
import proactive_bench.suites.trainee.templates.transaction_audit  # noqa: F401
import proactive_bench.suites.trainee.templates.workshop_booking  # noqa: F401

__all__: list[str] = []
