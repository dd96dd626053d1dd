"""The simulated Amazon app: catalog search, cart, wish list, orders, reviews, state across sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench.env.apps.base import AppStore, SeedError, app_tables
from proactive_bench.env.toolbox import ToolBox
from tests.helpers.app_calls import app_box, err, ok, seed_database

SEED = """
amazon_account:
  - {id: 1, email: la-mcco@gmail.com, password: "v[=NdO3", name: Laura Mccoy}
  - {id: 2, email: other@example.com, password: pw2, name: Other Shopper}
amazon_address:
  - {id: 1, account_id: 1, name: Laura Mccoy, street_address: 1 Main St, city: Boston, state: MA, zip_code: "02110"}
  - {id: 2, account_id: 2, name: Other, street_address: 9 Elm St, city: Austin, state: TX, zip_code: "73301"}
amazon_payment_card:
  - {id: 1, account_id: 1, card_name: Visa, owner_name: Laura Mccoy, card_number: "4111111111111234",
     expiry_year: 2028, expiry_month: 5}
  - {id: 2, account_id: 1, card_name: Amex, owner_name: Laura Mccoy, card_number: "371449635398431",
     expiry_year: 2026, expiry_month: 2}
  - {id: 3, account_id: 2, card_name: Visa, owner_name: Other, card_number: "4000000000000002",
     expiry_year: 2030, expiry_month: 1}
amazon_seller:
  - {id: 1, name: Trail Outfitters, description: Outdoor gear for hikers}
  - {id: 2, name: Bookish, description: New and used books}
amazon_product_type:
  - {id: 1, name: Socks}
  - {id: 2, name: Pants}
  - {id: 3, name: Books}
amazon_product:
  - {id: 1, name: Darn Tough Hiker Micro Crew Cushion Socks, description: Merino wool hiking socks,
     product_type_id: 1, seller_id: 1, price: 24.95, stock: 12, delivery_days: 2, variant_group: darn-hiker,
     options: {size: M}, star_rating: 4.8, star_rating_count: 9}
  - {id: 2, name: Darn Tough Hiker Micro Crew Cushion Socks, description: Merino wool hiking socks,
     product_type_id: 1, seller_id: 1, price: 24.95, stock: 1, delivery_days: 2, variant_group: darn-hiker,
     options: {size: L}, star_rating: 4.8, star_rating_count: 9}
  - {id: 3, name: Budget Cotton Hiking Socks 6-pack, product_type_id: 1, seller_id: 1, price: 12.5, stock: 40,
     delivery_days: 5, star_rating: 3.9, star_rating_count: 20}
  - {id: 4, name: Columbia Anytime Outdoor Boot Cut Pants, description: Relaxed fit hiking pants,
     product_type_id: 2, seller_id: 1, price: 59.99, stock: 8, star_rating: 4.6, star_rating_count: 30}
  - {id: 5, name: Slim Trail Pants, product_type_id: 2, seller_id: 1, price: 79.0, stock: 0,
     star_rating: 4.9, star_rating_count: 3}
  - {id: 6, name: A Walk in the Woods, description: Hiking memoir, product_type_id: 3, seller_id: 2,
     price: 15.0, stock: 5, star_rating: 4.2, star_rating_count: 100}
amazon_review:
  - {id: 1, product_id: 1, account_id: 2, reviewer_name: Other Shopper, rating: 3, title: OK, text: Fine socks,
     created_at: 2026-01-05T10:00:00}
amazon_question:
  - {id: 1, product_id: 1, account_id: 2, asker_name: Other Shopper, question: "Are they itchy?",
     created_at: 2026-01-06T10:00:00}
amazon_answer:
  - {id: 1, question_id: 1, answerer_name: Trail Outfitters, answer: "No", created_at: 2026-01-07T10:00:00}
amazon_order:
  - {id: 1, account_id: 1, address_id: 1, payment_card_id: 1, status: delivered, created_at: 2026-02-01T12:00:00}
amazon_order_item:
  - {id: 1, order_id: 1, product_id: 3, quantity: 2, unit_price: 11.0}
  - {id: 2, order_id: 1, product_id: 6, quantity: 1, unit_price: 15.0}
"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded database, built once; each test works on a copy."""
    return seed_database(tmp_path_factory.mktemp("amazon_seed"), "amazon", SEED)


def make_box(tmp_path: Path) -> ToolBox:
    return app_box(tmp_path, "amazon")


@pytest.fixture
def fresh(seeded: Path, tmp_path: Path) -> ToolBox:
    """A session on a freshly seeded database, not logged in."""
    return app_box(tmp_path, "amazon", seeded)


@pytest.fixture
def box(fresh: ToolBox) -> ToolBox:
    ok(fresh, "amazon__login", username="la-mcco@gmail.com", password="v[=NdO3")
    return fresh


def test_login_and_tools_that_need_it(fresh: ToolBox) -> None:
    box = fresh
    assert err(box, "amazon__show_cart") == "not logged in to amazon; call amazon__login first"
    assert err(box, "amazon__login", username="la-mcco@gmail.com", password="wrong") == "amazon: wrong username or password"
    assert ok(box, "amazon__search_products", query="pants")[0]["product_id"] == 4  # the catalog is public
    token = ok(box, "amazon__login", username="la-mcco@gmail.com", password="v[=NdO3")["access_token"]
    assert ok(box, "amazon__show_account", access_token=token) == {
        "account_id": 1,
        "email": "la-mcco@gmail.com",
        "name": "Laura Mccoy",
        "phone_number": None,
    }
    assert ok(box, "amazon__logout") == {"message": "logged out of amazon"}
    assert "not logged in" in err(box, "amazon__show_orders")


def test_search_products_filters_sorts_and_pages(box: ToolBox) -> None:
    everything = ok(box, "amazon__search_products")  # π-Bench calls it without arguments
    assert [p["product_id"] for p in everything] == [1, 2, 3, 4, 5, 6]
    socks = ok(box, "amazon__search_products", query="hiking socks", sort_by="price")
    assert [(p["product_id"], p["price"]) for p in socks] == [(3, 12.5), (1, 24.95), (2, 24.95)]
    assert socks[1]["seller_name"] == "Trail Outfitters" and socks[1]["stock"] == 12 and socks[1]["delivery_days"] == 2
    assert socks[1]["rating"] == 4.6 and socks[1]["num_ratings"] == 10  # 9 star ratings of 4.8 and one review of 3
    assert [p["product_id"] for p in ok(box, "amazon__search_products", product_type="pants", sort_by="rating")] == [5, 4]
    assert [p["product_id"] for p in ok(box, "amazon__search_products", min_price=13, max_price=60, seller_id=1)] == [1, 2, 4]
    assert [p["product_id"] for p in ok(box, "amazon__search_products", query="hiking")][:2] == [3, 1]  # name hits first
    assert [p["product_id"] for p in ok(box, "amazon__search_products", page_index=1, page_limit=4)] == [5, 6]
    assert ok(box, "amazon__search_products", query="kayak") == []
    assert "sort_by" in err(box, "amazon__search_products", sort_by="cheapest")


def test_catalog_details(box: ToolBox) -> None:
    product = ok(box, "amazon__show_product", product_id=1)
    assert product["description"] == "Merino wool hiking socks" and product["options"] == {"size": "M"}
    assert product["num_variants"] == 2 and product["num_questions"] == 1
    assert ok(box, "amazon__show_product_options", product_id=2) == [
        {"product_id": 1, "name": "Darn Tough Hiker Micro Crew Cushion Socks", "options": {"size": "M"}, "price": 24.95, "stock": 12},
        {"product_id": 2, "name": "Darn Tough Hiker Micro Crew Cushion Socks", "options": {"size": "L"}, "price": 24.95, "stock": 1},
    ]
    assert [t["name"] for t in ok(box, "amazon__search_product_types")] == ["Books", "Pants", "Socks"]
    assert ok(box, "amazon__search_product_types", query="sock") == [{"product_type_id": 1, "name": "Socks", "num_products": 3}]
    assert [s["seller_id"] for s in ok(box, "amazon__search_sellers", query="books")] == [2]
    assert ok(box, "amazon__show_seller", seller_id=1)["num_products"] == 5
    assert ok(box, "amazon__show_product_question_answers", question_id=1)[0]["answer"] == "No"
    assert err(box, "amazon__show_product", product_id=99) == "no product with id 99"
    assert err(box, "amazon__show_seller", seller_id=99) == "no seller with id 99"


def test_cart_adds_updates_and_checks_stock(box: ToolBox) -> None:
    added = ok(box, "amazon__add_product_to_cart", product_id=1, quantity=1)
    assert added["message"] == "Added 1 x Darn Tough Hiker Micro Crew Cushion Socks to the cart (1 in the cart now)."
    ok(box, "amazon__add_product_to_cart", product_id=1, quantity=2)
    ok(box, "amazon__add_product_to_cart", product_id=3)
    cart = ok(box, "amazon__show_cart")
    assert [(i["product_id"], i["quantity"], i["subtotal"]) for i in cart["cart_items"]] == [(1, 3, 74.85), (3, 1, 12.5)]
    assert cart["total_price"] == 87.35
    assert "only 1 of product 2" in err(box, "amazon__add_product_to_cart", product_id=2, quantity=2)
    assert "only 0 of product 5" in err(box, "amazon__add_product_to_cart", product_id=5)
    assert "quantity" in err(box, "amazon__add_product_to_cart", product_id=1, quantity=0)
    assert "only 12" in err(box, "amazon__update_product_quantity_in_cart", product_id=1, quantity=13)
    ok(box, "amazon__update_product_quantity_in_cart", product_id=1, quantity=5)
    ok(box, "amazon__update_product_quantity_in_cart", product_id=3, quantity=0)
    assert [(i["product_id"], i["quantity"]) for i in ok(box, "amazon__show_cart")["cart_items"]] == [(1, 5)]
    assert "not in the cart" in err(box, "amazon__update_product_quantity_in_cart", product_id=4, quantity=1)
    assert ok(box, "amazon__clear_cart") == {"message": "Cleared the cart (1 products removed)."}
    assert ok(box, "amazon__show_cart") == {"cart_items": [], "total_price": 0.0}


def test_wish_list_moves(box: ToolBox) -> None:
    ok(box, "amazon__add_product_to_wish_list", product_id=4)
    assert "already in the wish list" in err(box, "amazon__add_product_to_wish_list", product_id=4)
    ok(box, "amazon__move_product_from_wish_list_to_cart", product_id=4, quantity=2)
    assert ok(box, "amazon__show_wish_list") == []
    assert ok(box, "amazon__show_cart")["cart_items"][0]["quantity"] == 2
    ok(box, "amazon__move_product_from_cart_to_wish_list", product_id=4)
    assert [p["product_id"] for p in ok(box, "amazon__show_wish_list")] == [4]
    assert ok(box, "amazon__show_cart")["cart_items"] == []
    assert "not in the cart" in err(box, "amazon__move_product_from_cart_to_wish_list", product_id=4)
    assert "not in the wish list" in err(box, "amazon__move_product_from_wish_list_to_cart", product_id=6)
    ok(box, "amazon__remove_product_from_wish_list", product_id=4)
    assert ok(box, "amazon__show_wish_list") == []


def test_addresses_and_cards_are_per_account(box: ToolBox) -> None:
    assert [a["address_id"] for a in ok(box, "amazon__show_addresses")] == [1]
    new = ok(box, "amazon__add_address", name="Laura", street_address="5 Oak Rd", city="Salem", state="MA", zip_code="01970")
    assert new == {"address_id": 3, "message": "Address added."}
    assert ok(box, "amazon__show_addresses")[1]["country"] == "US"
    cards = ok(box, "amazon__show_payment_cards")
    assert [(c["payment_card_id"], c["card_number"]) for c in cards] == [(1, "**** **** **** 1234"), (2, "**** **** **** 8431")]
    assert ok(box, "amazon__show_payment_card", payment_card_id=2)["expiry"] == "2026-02"
    assert err(box, "amazon__show_payment_card", payment_card_id=3) == "no payment card with id 3 in your account"


def test_place_order_checks_and_effects(box: ToolBox) -> None:
    assert err(box, "amazon__place_order", address_id=1, payment_card_id=1) == "the cart is empty"
    ok(box, "amazon__add_product_to_cart", product_id=1, quantity=2)
    ok(box, "amazon__add_product_to_cart", product_id=4)
    assert "expired in 2026-02" in err(box, "amazon__place_order", address_id=1, payment_card_id=2)
    assert "no payment card with id 3" in err(box, "amazon__place_order", address_id=1, payment_card_id=3)
    assert "no address with id 2" in err(box, "amazon__place_order", address_id=2, payment_card_id=1)
    placed = ok(box, "amazon__place_order", address_id=1, payment_card_id=1)
    assert placed == {"order_id": 2, "message": "Order 2 placed.", "total": 109.89}
    assert ok(box, "amazon__show_cart")["cart_items"] == []
    assert ok(box, "amazon__show_product", product_id=1)["stock"] == 10
    assert [(o["order_id"], o["total"], o["num_items"]) for o in ok(box, "amazon__show_orders")] == [(2, 109.89, 3), (1, 37.0, 3)]
    order = ok(box, "amazon__show_order", order_id=2)
    assert [(i["product_id"], i["quantity"], i["unit_price"]) for i in order["items"]] == [(1, 2, 24.95), (4, 1, 59.99)]
    assert order["address"]["city"] == "Boston" and order["payment_card"]["payment_card_id"] == 1
    assert ok(box, "amazon__show_last_product_purchase")["order_id"] == 2
    assert [p["order_id"] for p in ok(box, "amazon__show_product_purchases", product_id=3)] == [1]
    assert ok(box, "amazon__show_product_purchases", product_id=5) == []


def test_reviews_only_for_bought_products_and_questions(box: ToolBox) -> None:
    args = {"rating": 5, "title": "Great", "text": "Good value"}
    assert "only review products you bought" in err(box, "amazon__write_product_review", product_id=1, **args)
    assert "rating" in err(box, "amazon__write_product_review", product_id=3, rating=6, title="x", text="y")
    assert ok(box, "amazon__write_product_review", product_id=3, **args)["review_id"] == 2
    assert "already reviewed" in err(box, "amazon__write_product_review", product_id=3, **args)
    reviews = ok(box, "amazon__show_product_reviews", product_id=3)
    assert [(r["reviewer_name"], r["rating"], r["created_at"]) for r in reviews] == [("Laura Mccoy", 5, "2026-03-02T09:00:00")]
    assert ok(box, "amazon__show_product", product_id=3)["num_ratings"] == 21
    asked = ok(box, "amazon__write_product_question", product_id=1, question="Do they run small?")
    assert asked == {"question_id": 2, "message": "Question about Darn Tough Hiker Micro Crew Cushion Socks posted."}
    questions = ok(box, "amazon__show_product_questions", product_id=1)
    assert [(q["question_id"], q["num_answers"]) for q in questions] == [(2, 0), (1, 1)]
    assert ok(box, "amazon__show_product_questions", product_id=1, page_index=1, page_limit=1)[0]["question_id"] == 1
    assert err(box, "amazon__show_product_question_answers", question_id=9) == "no question with id 9"


def test_recommendations_follow_purchases_history_and_exclude_owned(box: ToolBox) -> None:
    # bought socks (3) and a book (6): other in-stock socks, best rated first; the book type has nothing else
    assert [p["product_id"] for p in ok(box, "amazon__show_recommended_products")] == [2, 1]  # 4.8 before 4.6
    ok(box, "amazon__add_to_history", product_id=5)
    ok(box, "amazon__add_product_to_wish_list", product_id=2)
    assert [p["product_id"] for p in ok(box, "amazon__show_recommended_products")] == [4, 1]  # 5 is out of stock; ties go to more ratings
    assert err(box, "amazon__add_to_history", product_id=42) == "no product with id 42"


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    ok(box, "amazon__add_product_to_cart", product_id=4, quantity=2)
    snap = box.env.require_apps().snapshot()
    ok(box, "amazon__place_order", address_id=1, payment_card_id=1)
    again = make_box(tmp_path)  # a later session of the same episode
    assert ok(again, "amazon__show_orders")[0]["order_id"] == 2
    assert ok(again, "amazon__show_product", product_id=4)["stock"] == 6
    again.env.require_apps().restore(snap)
    assert ok(again, "amazon__show_cart")["cart_items"][0]["quantity"] == 2
    assert [o["order_id"] for o in ok(again, "amazon__show_orders")] == [1]
    assert ok(again, "amazon__show_product", product_id=1)["options"] == {"size": "M"}


def test_seed_rows_are_validated(tmp_path: Path) -> None:
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "amazon.yaml").write_text(
        "amazon_review:\n  - {id: 1, product_id: 1, reviewer_name: x, rating: 7, title: t, text: t, created_at: 2026-01-01T00:00:00}\n"
    )
    with pytest.raises(SeedError, match=r"amazon_review\[0\]\.rating: Input should be less than or equal to 5"):
        AppStore().seed_from(tmp_path / "seed")


def test_rows_read_back_keep_their_table_s_field_order(box: ToolBox) -> None:
    """What the agent reads and what a snapshot stores list a row's fields as its table declares them: a row the ORM
    loaded holds its attributes in an order that differs between processes, and ``model_dump`` follows it."""
    ok(box, "amazon__add_address", name="Laura", street_address="5 Oak Rd", city="Salem", state="MA", zip_code="01970")
    for address in ok(box, "amazon__show_addresses"):
        assert list(address) == ["address_id", "name", "street_address", "city", "state", "zip_code", "country"]
    assert list(ok(box, "amazon__show_account")) == ["email", "name", "phone_number", "account_id"]
    snapshot = box.env.require_apps().snapshot()
    for name, model in app_tables().items():
        for row in snapshot.get(name, []):
            assert list(row) == list(model.model_fields), name
