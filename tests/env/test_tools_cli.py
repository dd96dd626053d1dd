"""`pbench tools`: every registered tool with its schema, and the tools a persona's sessions offer."""

from __future__ import annotations

import json

from tests.helpers.cli import run_cli

# App tool names that π-Bench tasks call (its data's tools.yaml files), as <app>: verbs.
PIBENCH_APP_TOOLS = {
    "amazon": "add_product_to_cart add_product_to_wish_list clear_cart login move_product_from_cart_to_wish_list"
    " move_product_from_wish_list_to_cart place_order search_product_types search_products search_sellers show_account"
    " show_addresses show_cart show_last_product_purchase show_payment_cards show_product show_product_purchases"
    " show_product_questions show_product_reviews show_recommended_products show_seller show_wish_list"
    " update_product_quantity_in_cart write_product_question write_product_review",
    "gmail": "create_draft label_thread login mark_thread_archived mark_thread_read mark_thread_unread reply_to_email"
    " search_labels search_users send_email send_email_from_draft show_category_sizes show_draft show_drafts show_email"
    " show_inbox_threads show_outbox_threads show_starred_threads show_thread unlabel_thread update_draft",
    "phone": "add_contact create_alarm get_current_date_and_time login search_contacts search_text_messages"
    " send_text_message show_alarm show_text_message show_text_message_window update_alarm update_contact",
    "simple_note": "add_content_to_note create_note delete_note login logout search_notes show_account show_note show_profile update_note",
    "splitwise": "add_member_to_group create_group login record_expense search_users show_group show_group_balance show_groups"
    " show_people_balance show_person_balance",
    "spotify": "follow_artist like_song login review_song search_artists search_songs show_artist show_artist_following"
    " show_liked_songs show_song show_song_review show_song_reviews update_song_review",
    "todoist": "add_label_to_task assign_or_unassign_task create_label create_project create_section create_sub_task create_task"
    " delete_label delete_notifications delete_project delete_section delete_task delete_task_comment login mark_notification"
    " post_task_comment remove_label_from_task search_labels search_users show_notifications show_notifications_count"
    " show_project show_projects show_sections show_sub_tasks show_task show_task_comment show_task_comments show_tasks"
    " update_project update_section update_sub_task update_task update_task_comment",
}
# The office tools and the calendar app (OdysseyBench-style tasks), as group: tools.
OFFICE_TOOLS = {
    "documents": "docx_create docx_edit docx_read",
    "spreadsheets": "xlsx_read xlsx_write xlsx_append_rows",
    "pdf": "pdf_create pdf_extract_text",
    "calendar": "calendar__create_event calendar__list_events calendar__update_event calendar__delete_event calendar__import_ics"
    " calendar__export_ics",
}
GENERAL_TOOLS = "read_file write_file edit_file list_dir glob grep shell_exec web_search web_fetch send_message schedule_task list_skills read_skill memory_read memory_write"


def _listed(*args: str) -> dict[str, dict]:
    result = run_cli("tools", "--json", *args)
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_every_pibench_app_tool_and_general_tool_is_listed_with_a_schema() -> None:
    listed = _listed()
    wanted = {f"{app}__{verb}" for app, verbs in PIBENCH_APP_TOOLS.items() for verb in verbs.split()} | set(GENERAL_TOOLS.split())
    assert wanted <= set(listed), sorted(wanted - set(listed))
    assert {row["group"] for row in listed.values()} >= {*PIBENCH_APP_TOOLS, "file_system", "workspace", "shell", "web"}
    draft = listed["gmail__create_draft"]["args"]
    assert {"recipient_email_addresses", "body"} <= set(draft["properties"]) and draft["properties"]["body"].get("description")


def test_office_tools_and_calendar_are_listed_in_their_groups_with_schemas() -> None:
    listed = _listed()
    for group, names in OFFICE_TOOLS.items():
        assert {name for name, row in listed.items() if row["group"] == group} == set(names.split()), group
    assert "calendar__login" not in listed  # the calendar needs no login, so its tools take no access_token
    assert "access_token" not in listed["calendar__create_event"]["args"]["properties"]
    create = listed["calendar__create_event"]["args"]
    assert set(create["required"]) == {"title", "start", "end"} and create["properties"]["attendees"].get("description")
    assert {"path", "blocks", "overwrite"} <= set(listed["docx_create"]["args"]["properties"])
    assert {"path", "cells", "sheet"} <= set(listed["xlsx_write"]["args"]["properties"])
    assert {"path", "text", "from_docx", "title"} <= set(listed["pdf_create"]["args"]["properties"])


def test_persona_listing_is_what_its_sessions_offer() -> None:
    everything, pharmacist = _listed(), _listed("--persona", "pharmacist")
    assert {"read_file", "write_file", "memory_read"} <= set(pharmacist) < set(everything)
    table = run_cli("tools", "--persona", "pharmacist")
    assert table.exit_code == 0 and f"{len(pharmacist)} tools offered to pharmacist" in table.output


def test_unknown_persona_is_a_clear_error() -> None:
    result = run_cli("tools", "--persona", "astronaut")
    assert result.exit_code != 0 and "astronaut" in result.output and "Traceback" not in result.output
