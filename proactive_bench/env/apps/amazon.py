"""A simulated Amazon store: a product catalog, and one shopper's cart, wish list and orders.

Tables: ``amazon_account`` (shoppers: email, password, name), ``amazon_address`` and
``amazon_payment_card`` (a shopper's), ``amazon_seller``, ``amazon_product_type`` and
``amazon_product`` (price, stock, delivery days; variants of one item share a
``variant_group`` and differ in ``options``), ``amazon_review``, ``amazon_question`` and
``amazon_answer`` (public, from any shopper), ``amazon_cart_item``, ``amazon_wish_list_item``
and ``amazon_history_item`` (per shopper), ``amazon_order`` and ``amazon_order_item``
(unit prices frozen at purchase time). Catalog browsing needs no login; everything about the
shopper's own data does.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Literal

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlmodel import JSON, Column, Field, Session, col, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    dump_row,
    foreign_key,
    get_row,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "amazon"


class AmazonAccount(AppModel, table=True):
    __tablename__ = "amazon_account"
    id: int = Field(default=None, primary_key=True)
    email: str = Field(unique=True)
    password: str
    name: str
    phone_number: str | None = None


class AmazonAddress(AppModel, table=True):
    __tablename__ = "amazon_address"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    name: str
    street_address: str
    city: str
    state: str
    zip_code: str
    country: str = "US"


class AmazonPaymentCard(AppModel, table=True):
    __tablename__ = "amazon_payment_card"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    card_name: str
    owner_name: str
    card_number: str
    expiry_year: int
    expiry_month: int = Field(ge=1, le=12)


class AmazonSeller(AppModel, table=True):
    __tablename__ = "amazon_seller"
    id: int = Field(default=None, primary_key=True)
    name: str
    description: str = ""
    email: str | None = None


class AmazonProductType(AppModel, table=True):
    __tablename__ = "amazon_product_type"
    id: int = Field(default=None, primary_key=True)
    name: str = Field(unique=True)


class AmazonProduct(AppModel, table=True):
    __tablename__ = "amazon_product"
    id: int = Field(default=None, primary_key=True)
    name: str
    description: str = ""
    product_type_id: int = foreign_key("amazon_product_type.id")
    seller_id: int = foreign_key("amazon_seller.id")
    price: float = Field(ge=0)
    stock: int = Field(default=0, ge=0)
    delivery_days: int = Field(default=3, ge=0)
    variant_group: str | None = None
    options: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON))
    star_rating: float = Field(default=0.0, ge=0, le=5)
    """Average of the star-only ratings (given without a written review)."""
    star_rating_count: int = Field(default=0, ge=0)


class AmazonReview(AppModel, table=True):
    __tablename__ = "amazon_review"
    id: int = Field(default=None, primary_key=True)
    product_id: int = foreign_key("amazon_product.id")
    account_id: int | None = foreign_key("amazon_account.id", default=None)
    reviewer_name: str
    rating: int = Field(ge=1, le=5)
    title: str
    text: str
    created_at: NaiveDatetime


class AmazonQuestion(AppModel, table=True):
    __tablename__ = "amazon_question"
    id: int = Field(default=None, primary_key=True)
    product_id: int = foreign_key("amazon_product.id")
    account_id: int | None = foreign_key("amazon_account.id", default=None)
    asker_name: str
    question: str
    created_at: NaiveDatetime


class AmazonAnswer(AppModel, table=True):
    __tablename__ = "amazon_answer"
    id: int = Field(default=None, primary_key=True)
    question_id: int = foreign_key("amazon_question.id")
    answerer_name: str
    answer: str
    created_at: NaiveDatetime


class AmazonCartItem(AppModel, table=True):
    __tablename__ = "amazon_cart_item"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    product_id: int = foreign_key("amazon_product.id")
    quantity: int = Field(ge=1)


class AmazonWishListItem(AppModel, table=True):
    __tablename__ = "amazon_wish_list_item"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    product_id: int = foreign_key("amazon_product.id")
    added_at: NaiveDatetime


class AmazonHistoryItem(AppModel, table=True):
    __tablename__ = "amazon_history_item"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    product_id: int = foreign_key("amazon_product.id")
    viewed_at: NaiveDatetime


class AmazonOrder(AppModel, table=True):
    __tablename__ = "amazon_order"
    id: int = Field(default=None, primary_key=True)
    account_id: int = foreign_key("amazon_account.id")
    address_id: int = foreign_key("amazon_address.id")
    payment_card_id: int = foreign_key("amazon_payment_card.id")
    status: str = "placed"
    created_at: NaiveDatetime


class AmazonOrderItem(AppModel, table=True):
    __tablename__ = "amazon_order_item"
    id: int = Field(default=None, primary_key=True)
    order_id: int = foreign_key("amazon_order.id")
    product_id: int = foreign_key("amazon_product.id")
    quantity: int = Field(ge=1)
    unit_price: float


def _find_account(db: Session, email: str) -> AmazonAccount | None:
    return db.exec(select(AmazonAccount).where(AmazonAccount.email == email)).first()


register_app(
    AppSpec(
        APP,
        "Online store: search products, read reviews, manage cart and wish list, place orders.",
        (
            AmazonAccount,
            AmazonAddress,
            AmazonPaymentCard,
            AmazonSeller,
            AmazonProductType,
            AmazonProduct,
            AmazonReview,
            AmazonQuestion,
            AmazonAnswer,
            AmazonCartItem,
            AmazonWishListItem,
            AmazonHistoryItem,
            AmazonOrder,
            AmazonOrderItem,
        ),
        find_account=_find_account,
    )
)


# ---- shared helpers ---------------------------------------------------------------


def _shopper(env: ToolEnv) -> AbstractContextManager[tuple[Session, AmazonAccount]]:
    """A transaction together with the logged-in shopper's account."""
    return logged_in(env, APP)


def _money(value: float) -> float:
    return round(value + 1e-9, 2)


def _own(db: Session, model: type[Any], row_id: int, account: AmazonAccount, what: str) -> Any:
    """A row of the shopper's own, or a ToolError (others' rows look like unknown ids)."""
    row = db.get(model, row_id)
    if row is None or row.account_id != account.id:
        raise ToolError(f"no {what} with id {row_id} in your account")
    return row


def _rating(db: Session, product: AmazonProduct) -> tuple[float, int]:
    """Average rating over star-only ratings and written reviews, and the number of ratings."""
    stars = db.exec(select(AmazonReview.rating).where(AmazonReview.product_id == product.id)).all()
    count = product.star_rating_count + len(stars)
    if count == 0:
        return 0.0, 0
    return round((product.star_rating * product.star_rating_count + sum(stars)) / count, 1), count


def _parents(db: Session, product: AmazonProduct) -> tuple[AmazonSeller, AmazonProductType]:
    """A product's seller and type (ToolError when one is gone)."""
    return get_row(db, AmazonSeller, product.seller_id, "seller"), get_row(db, AmazonProductType, product.product_type_id, "product type")


def _product_view(db: Session, product: AmazonProduct, parents: tuple[AmazonSeller, AmazonProductType] | None = None) -> dict[str, Any]:
    """What the tools show of a product (``parents``: its :func:`_parents`, when the caller has read them)."""
    seller, product_type = parents or _parents(db, product)
    rating, count = _rating(db, product)
    return {
        "product_id": product.id,
        "name": product.name,
        "product_type": product_type.name,
        "price": _money(product.price),
        "rating": rating,
        "num_ratings": count,
        "stock": product.stock,
        "delivery_days": product.delivery_days,
        "seller_id": product.seller_id,
        "seller_name": seller.name,
        "options": product.options,
    }


def _variants(db: Session, product: AmazonProduct) -> list[AmazonProduct]:
    if product.variant_group is None:
        return [product]
    query = select(AmazonProduct).where(AmazonProduct.variant_group == product.variant_group)
    return list(db.exec(query.order_by(col(AmazonProduct.id))).all())


def _entry(db: Session, model: type[Any], account: AmazonAccount, product_id: int) -> Any:
    """The shopper's cart or wish-list row of a product, if any."""
    return db.exec(select(model).where(model.account_id == account.id, model.product_id == product_id)).first()


def _check_stock(product: AmazonProduct, quantity: int) -> None:
    if quantity > product.stock:
        raise ToolError(f"only {product.stock} of product {product.id} ({product.name}) in stock; asked for {quantity}")


def _add_to_cart(db: Session, account: AmazonAccount, product_id: int, quantity: int) -> str:
    product = get_row(db, AmazonProduct, product_id, "product")
    item = _entry(db, AmazonCartItem, account, product_id)
    total = quantity + (item.quantity if item else 0)
    _check_stock(product, total)
    if item:
        item.quantity = total
    else:
        db.add(AmazonCartItem(account_id=account.id, product_id=product_id, quantity=quantity))
    return f"Added {quantity} x {product.name} to the cart ({total} in the cart now)."


def _add_to_wish_list(db: Session, account: AmazonAccount, product_id: int) -> str:
    product = get_row(db, AmazonProduct, product_id, "product")
    if _entry(db, AmazonWishListItem, account, product_id):
        raise ToolError(f"product {product_id} is already in the wish list")
    db.add(AmazonWishListItem(account_id=account.id, product_id=product_id, added_at=now(db)))
    return f"Added {product.name} to the wish list."


def _card_view(card: AmazonPaymentCard) -> dict[str, Any]:
    return {
        "payment_card_id": card.id,
        "card_name": card.card_name,
        "owner_name": card.owner_name,
        "card_number": f"**** **** **** {card.card_number[-4:]}",
        "expiry": f"{card.expiry_year:04d}-{card.expiry_month:02d}",
    }


def _address_view(address: AmazonAddress) -> dict[str, Any]:
    return {"address_id": address.id} | dump_row(address, exclude={"id", "account_id"})


def _order_view(db: Session, order: AmazonOrder, detailed: bool) -> dict[str, Any]:
    items = db.exec(select(AmazonOrderItem).where(AmazonOrderItem.order_id == order.id)).all()
    view: dict[str, Any] = {
        "order_id": order.id,
        "ordered_at": order.created_at.isoformat(),
        "status": order.status,
        "total": _money(sum(i.unit_price * i.quantity for i in items)),
        "num_items": sum(i.quantity for i in items),
    }
    if detailed:
        view["items"] = [
            {
                "product_id": i.product_id,
                "name": get_row(db, AmazonProduct, i.product_id, "product").name,
                "quantity": i.quantity,
                "unit_price": _money(i.unit_price),
            }
            for i in items
        ]
        view["address"] = _address_view(get_row(db, AmazonAddress, order.address_id, "address"))
        view["payment_card"] = _card_view(get_row(db, AmazonPaymentCard, order.payment_card_id, "payment card"))
    return view


def _purchases(db: Session, account: AmazonAccount, product_id: int | None = None) -> list[dict[str, Any]]:
    """The shopper's purchased order lines, newest first."""
    query = select(AmazonOrderItem, AmazonOrder).where(AmazonOrderItem.order_id == AmazonOrder.id, AmazonOrder.account_id == account.id)
    if product_id is not None:
        query = query.where(AmazonOrderItem.product_id == product_id)
    rows = db.exec(query.order_by(col(AmazonOrder.created_at).desc(), col(AmazonOrder.id).desc())).all()
    return [
        {
            "order_id": order.id,
            "product_id": item.product_id,
            "name": get_row(db, AmazonProduct, item.product_id, "product").name,
            "quantity": item.quantity,
            "unit_price": _money(item.unit_price),
            "ordered_at": order.created_at.isoformat(),
        }
        for item, order in rows
    ]


def _account_products(db: Session, model: type[Any], account: AmazonAccount) -> list[int]:
    return list(db.exec(select(model.product_id).where(model.account_id == account.id)).all())


# ---- argument models --------------------------------------------------------------


class ProductArgs(BaseModel):
    product_id: int = Arg(description="The product's id.")


class ProductPageArgs(ProductArgs, PageArgs):
    pass


class QuantityArgs(ProductArgs):
    quantity: int = Arg(default=1, ge=1, description="How many units.")


class NewQuantityArgs(ProductArgs):
    quantity: int = Arg(ge=0, description="The new quantity in the cart; 0 removes the product.")


class QueryArgs(PageArgs):
    query: str | None = Arg(default=None, description="Words to search for; empty lists everything.")


class AddressArgs(BaseModel):
    name: str = Arg(min_length=1, description="Name of the recipient.")
    street_address: str = Arg(min_length=1, description="Street and number.")
    city: str = Arg(min_length=1, description="City.")
    state: str = Arg(min_length=1, description="State or region.")
    zip_code: str = Arg(min_length=1, description="Postal code.")
    country: str = Arg(default="US", description="Country.")


class CardArgs(BaseModel):
    payment_card_id: int = Arg(description="The payment card's id.")


class SearchProductsArgs(QueryArgs):
    product_type: str | None = Arg(default=None, description="Only products of this type (its name).")
    seller_id: int | None = Arg(default=None, description="Only products of this seller.")
    min_price: float | None = Arg(default=None, ge=0, description="Lowest price.")
    max_price: float | None = Arg(default=None, ge=0, description="Highest price.")
    sort_by: Literal["price", "rating", "relevance"] = Arg(
        default="relevance", description="price (cheapest first), rating (best first) or relevance."
    )


class SellerArgs(BaseModel):
    seller_id: int = Arg(description="The seller's id.")


class ReviewArgs(ProductArgs):
    rating: int = Arg(ge=1, le=5, description="Stars, 1 to 5.")
    title: str = Arg(min_length=1, description="Review title.")
    text: str = Arg(min_length=1, description="Review text.")


class QuestionArgs(ProductArgs):
    question: str = Arg(min_length=1, description="The question to ask about the product.")


class QuestionIdArgs(BaseModel):
    question_id: int = Arg(description="The question's id.")


class OrderArgs(BaseModel):
    address_id: int = Arg(description="Shipping address id (from amazon__show_addresses).")
    payment_card_id: int = Arg(description="Payment card id (from amazon__show_payment_cards).")


class OrderIdArgs(BaseModel):
    order_id: int = Arg(description="The order's id.")


# ---- account ----------------------------------------------------------------------


@register_tool("amazon__show_account", group=APP)
def show_account(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Show the logged-in shopper's account details."""
    with _shopper(env) as (_, account):
        return dump_row(account, exclude={"id", "password"}) | {"account_id": account.id}


@register_tool("amazon__show_addresses", group=APP)
def show_addresses(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """List the shopper's saved shipping addresses."""
    with _shopper(env) as (db, account):
        rows = db.exec(select(AmazonAddress).where(AmazonAddress.account_id == account.id)).all()
        return [_address_view(a) for a in rows]


@register_tool("amazon__add_address", group=APP)
def add_address(env: ToolEnv, args: AddressArgs) -> dict[str, Any]:
    """Save a new shipping address."""
    with _shopper(env) as (db, account):
        address = AmazonAddress(account_id=account.id, **args.model_dump(exclude={"access_token"}))
        db.add(address)
        db.flush()
        return {"address_id": address.id, "message": "Address added."}


@register_tool("amazon__show_payment_cards", group=APP)
def show_payment_cards(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """List the shopper's payment cards (numbers masked)."""
    with _shopper(env) as (db, account):
        rows = db.exec(select(AmazonPaymentCard).where(AmazonPaymentCard.account_id == account.id)).all()
        return [_card_view(c) for c in rows]


@register_tool("amazon__show_payment_card", group=APP)
def show_payment_card(env: ToolEnv, args: CardArgs) -> dict[str, Any]:
    """Show one of the shopper's payment cards."""
    with _shopper(env) as (db, account):
        return _card_view(_own(db, AmazonPaymentCard, args.payment_card_id, account, "payment card"))


# ---- catalog (no login needed) ----------------------------------------------------


@register_tool("amazon__search_product_types", group=APP)
def search_product_types(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """Search product types (categories) by name, with how many products each has."""
    with env.require_apps().db() as db:
        types = [t for t in db.exec(select(AmazonProductType).order_by(AmazonProductType.name)).all() if matches_query(args.query, t.name)]
        return [
            {
                "product_type_id": t.id,
                "name": t.name,
                "num_products": len(db.exec(select(AmazonProduct.id).where(AmazonProduct.product_type_id == t.id)).all()),
            }
            for t in paginate(types, args)
        ]


def _relevance(query: str | None, view: dict[str, Any]) -> int:
    words = (query or "").lower().split()
    return sum(3 if word in view["name"].lower() else 1 for word in words)


@register_tool("amazon__search_products", group=APP)
def search_products(env: ToolEnv, args: SearchProductsArgs) -> list[dict[str, Any]]:
    """Search products by words, type, seller and price range; every argument is optional."""
    with env.require_apps().db() as db:
        views = []
        for product in db.exec(select(AmazonProduct).order_by(col(AmazonProduct.id))).all():
            seller, product_type = parents = _parents(db, product)
            if (
                matches_query(args.query, product.name, product.description, product_type.name, seller.name)
                and (args.product_type is None or product_type.name.lower() == args.product_type.lower())
                and (args.seller_id is None or product.seller_id == args.seller_id)
                and (args.min_price is None or product.price >= args.min_price)
                and (args.max_price is None or product.price <= args.max_price)
            ):
                views.append(_product_view(db, product, parents))  # its rating read for a match only
        keys = {
            "price": lambda v: (v["price"], v["product_id"]),
            "rating": lambda v: (-v["rating"], -v["num_ratings"], v["product_id"]),
            "relevance": lambda v: (-_relevance(args.query, v), v["product_id"]),
        }
        return paginate(sorted(views, key=keys[args.sort_by]), args)


@register_tool("amazon__show_product", group=APP)
def show_product(env: ToolEnv, args: ProductArgs) -> dict[str, Any]:
    """Show a product: price, seller, rating, stock, delivery time, options and description."""
    with env.require_apps().db() as db:
        product = get_row(db, AmazonProduct, args.product_id, "product")
        questions = db.exec(select(AmazonQuestion.id).where(AmazonQuestion.product_id == product.id)).all()
        return _product_view(db, product) | {
            "description": product.description,
            "num_variants": len(_variants(db, product)),
            "num_questions": len(questions),
        }


@register_tool("amazon__show_product_options", group=APP)
def show_product_options(env: ToolEnv, args: ProductArgs) -> list[dict[str, Any]]:
    """List the variants of a product (e.g. sizes, colours), each with its own product id, price and stock."""
    with env.require_apps().db() as db:
        product = get_row(db, AmazonProduct, args.product_id, "product")
        return [
            {"product_id": v.id, "name": v.name, "options": v.options, "price": _money(v.price), "stock": v.stock}
            for v in _variants(db, product)
        ]


@register_tool("amazon__search_sellers", group=APP)
def search_sellers(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """Search sellers by name or description."""
    with env.require_apps().db() as db:
        sellers = [
            s
            for s in db.exec(select(AmazonSeller).order_by(col(AmazonSeller.id))).all()
            if matches_query(args.query, s.name, s.description)
        ]
        return [{"seller_id": s.id, "name": s.name, "description": s.description} for s in paginate(sellers, args)]


@register_tool("amazon__show_seller", group=APP)
def show_seller(env: ToolEnv, args: SellerArgs) -> dict[str, Any]:
    """Show a seller and how many products it sells."""
    with env.require_apps().db() as db:
        seller = get_row(db, AmazonSeller, args.seller_id, "seller")
        products = db.exec(select(AmazonProduct.id).where(AmazonProduct.seller_id == seller.id)).all()
        return {
            "seller_id": seller.id,
            "name": seller.name,
            "description": seller.description,
            "email": seller.email,
            "num_products": len(products),
        }


@register_tool("amazon__show_product_reviews", group=APP)
def show_product_reviews(env: ToolEnv, args: ProductPageArgs) -> list[dict[str, Any]]:
    """List a product's written reviews, newest first."""
    with env.require_apps().db() as db:
        get_row(db, AmazonProduct, args.product_id, "product")
        query = select(AmazonReview).where(AmazonReview.product_id == args.product_id)
        rows = db.exec(query.order_by(col(AmazonReview.created_at).desc(), col(AmazonReview.id).desc())).all()
        return [
            {
                "review_id": r.id,
                "reviewer_name": r.reviewer_name,
                "rating": r.rating,
                "title": r.title,
                "text": r.text,
                "created_at": r.created_at.isoformat(),
            }
            for r in paginate(list(rows), args)
        ]


@register_tool("amazon__write_product_review", group=APP)
def write_product_review(env: ToolEnv, args: ReviewArgs) -> dict[str, Any]:
    """Review a product the shopper has bought (one review per product)."""
    with _shopper(env) as (db, account):
        product = get_row(db, AmazonProduct, args.product_id, "product")
        if not _purchases(db, account, product.id):
            raise ToolError(f"you can only review products you bought; product {product.id} was never ordered")
        mine = select(AmazonReview).where(AmazonReview.product_id == product.id, AmazonReview.account_id == account.id)
        if db.exec(mine).first():
            raise ToolError(f"you already reviewed product {product.id}")
        review = AmazonReview(
            product_id=product.id,
            account_id=account.id,
            reviewer_name=account.name,
            rating=args.rating,
            title=args.title,
            text=args.text,
            created_at=now(db),
        )
        db.add(review)
        db.flush()
        return {"review_id": review.id, "message": f"Review of {product.name} posted."}


@register_tool("amazon__show_product_questions", group=APP)
def show_product_questions(env: ToolEnv, args: ProductPageArgs) -> list[dict[str, Any]]:
    """List the questions shoppers asked about a product, newest first."""
    with env.require_apps().db() as db:
        get_row(db, AmazonProduct, args.product_id, "product")
        query = select(AmazonQuestion).where(AmazonQuestion.product_id == args.product_id)
        rows = db.exec(query.order_by(col(AmazonQuestion.created_at).desc(), col(AmazonQuestion.id).desc())).all()
        return [
            {
                "question_id": q.id,
                "question": q.question,
                "asked_by": q.asker_name,
                "asked_at": q.created_at.isoformat(),
                "num_answers": len(db.exec(select(AmazonAnswer.id).where(AmazonAnswer.question_id == q.id)).all()),
            }
            for q in paginate(list(rows), args)
        ]


@register_tool("amazon__write_product_question", group=APP)
def write_product_question(env: ToolEnv, args: QuestionArgs) -> dict[str, Any]:
    """Ask a public question about a product."""
    with _shopper(env) as (db, account):
        product = get_row(db, AmazonProduct, args.product_id, "product")
        question = AmazonQuestion(
            product_id=product.id, account_id=account.id, asker_name=account.name, question=args.question, created_at=now(db)
        )
        db.add(question)
        db.flush()
        return {"question_id": question.id, "message": f"Question about {product.name} posted."}


@register_tool("amazon__show_product_question_answers", group=APP)
def show_product_question_answers(env: ToolEnv, args: QuestionIdArgs) -> list[dict[str, Any]]:
    """List the answers to a product question, oldest first."""
    with env.require_apps().db() as db:
        get_row(db, AmazonQuestion, args.question_id, "question")
        query = select(AmazonAnswer).where(AmazonAnswer.question_id == args.question_id)
        return [
            {"answer_id": a.id, "answer": a.answer, "answered_by": a.answerer_name, "answered_at": a.created_at.isoformat()}
            for a in db.exec(query.order_by(col(AmazonAnswer.created_at), col(AmazonAnswer.id))).all()
        ]


# ---- history, cart, wish list -----------------------------------------------------


@register_tool("amazon__add_to_history", group=APP)
def add_to_history(env: ToolEnv, args: ProductArgs) -> dict[str, Any]:
    """Record that the shopper viewed a product (browsing history, used for recommendations)."""
    with _shopper(env) as (db, account):
        product = get_row(db, AmazonProduct, args.product_id, "product")
        db.add(AmazonHistoryItem(account_id=account.id, product_id=product.id, viewed_at=now(db)))
        return {"message": f"Added {product.name} to the browsing history."}


@register_tool("amazon__show_cart", group=APP)
def show_cart(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Show the cart: items with prices and quantities, and the total price."""
    with _shopper(env) as (db, account):
        query = select(AmazonCartItem).where(col(AmazonCartItem.account_id) == account.id).order_by(col(AmazonCartItem.id))
        items: list[dict[str, Any]] = []
        for item in db.exec(query).all():
            product = get_row(db, AmazonProduct, item.product_id, "product")
            items.append(
                {
                    "product_id": product.id,
                    "name": product.name,
                    "price": _money(product.price),
                    "quantity": item.quantity,
                    "subtotal": _money(product.price * item.quantity),
                    "stock": product.stock,
                    "options": product.options,
                }
            )
        return {"cart_items": items, "total_price": _money(sum(i["subtotal"] for i in items))}


@register_tool("amazon__add_product_to_cart", group=APP)
def add_product_to_cart(env: ToolEnv, args: QuantityArgs) -> dict[str, Any]:
    """Add units of a product to the cart (on top of any already there), if enough are in stock."""
    with _shopper(env) as (db, account):
        return {"message": _add_to_cart(db, account, args.product_id, args.quantity)}


@register_tool("amazon__update_product_quantity_in_cart", group=APP)
def update_product_quantity_in_cart(env: ToolEnv, args: NewQuantityArgs) -> dict[str, Any]:
    """Set the quantity of a product already in the cart; 0 removes it."""
    with _shopper(env) as (db, account):
        item = _entry(db, AmazonCartItem, account, args.product_id)
        if item is None:
            raise ToolError(f"product {args.product_id} is not in the cart; use amazon__add_product_to_cart")
        if args.quantity == 0:
            db.delete(item)
            return {"message": f"Removed product {args.product_id} from the cart."}
        _check_stock(get_row(db, AmazonProduct, args.product_id, "product"), args.quantity)
        item.quantity = args.quantity
        return {"message": f"Product {args.product_id} now has quantity {args.quantity} in the cart."}


@register_tool("amazon__clear_cart", group=APP)
def clear_cart(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Remove everything from the cart."""
    with _shopper(env) as (db, account):
        items = db.exec(select(AmazonCartItem).where(AmazonCartItem.account_id == account.id)).all()
        for item in items:
            db.delete(item)
        return {"message": f"Cleared the cart ({len(items)} products removed)."}


@register_tool("amazon__show_wish_list", group=APP)
def show_wish_list(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the products on the shopper's wish list, oldest first."""
    with _shopper(env) as (db, account):
        query = select(AmazonWishListItem).where(AmazonWishListItem.account_id == account.id)
        rows = db.exec(query.order_by(col(AmazonWishListItem.added_at), col(AmazonWishListItem.id))).all()
        return [
            _product_view(db, get_row(db, AmazonProduct, w.product_id, "product")) | {"added_at": w.added_at.isoformat()}
            for w in paginate(list(rows), args)
        ]


@register_tool("amazon__add_product_to_wish_list", group=APP)
def add_product_to_wish_list(env: ToolEnv, args: ProductArgs) -> dict[str, Any]:
    """Add a product to the wish list."""
    with _shopper(env) as (db, account):
        return {"message": _add_to_wish_list(db, account, args.product_id)}


@register_tool("amazon__remove_product_from_wish_list", group=APP)
def remove_product_from_wish_list(env: ToolEnv, args: ProductArgs) -> dict[str, Any]:
    """Remove a product from the wish list."""
    with _shopper(env) as (db, account):
        item = _entry(db, AmazonWishListItem, account, args.product_id)
        if item is None:
            raise ToolError(f"product {args.product_id} is not in the wish list")
        db.delete(item)
        return {"message": f"Removed product {args.product_id} from the wish list."}


@register_tool("amazon__move_product_from_cart_to_wish_list", group=APP)
def move_product_from_cart_to_wish_list(env: ToolEnv, args: ProductArgs) -> dict[str, Any]:
    """Move a product out of the cart onto the wish list."""
    with _shopper(env) as (db, account):
        item = _entry(db, AmazonCartItem, account, args.product_id)
        if item is None:
            raise ToolError(f"product {args.product_id} is not in the cart")
        db.delete(item)
        if not _entry(db, AmazonWishListItem, account, args.product_id):
            _add_to_wish_list(db, account, args.product_id)
        return {"message": f"Moved product {args.product_id} from the cart to the wish list."}


@register_tool("amazon__move_product_from_wish_list_to_cart", group=APP)
def move_product_from_wish_list_to_cart(env: ToolEnv, args: QuantityArgs) -> dict[str, Any]:
    """Move a product from the wish list into the cart."""
    with _shopper(env) as (db, account):
        item = _entry(db, AmazonWishListItem, account, args.product_id)
        if item is None:
            raise ToolError(f"product {args.product_id} is not in the wish list")
        message = _add_to_cart(db, account, args.product_id, args.quantity)
        db.delete(item)
        return {"message": f"{message} Removed it from the wish list."}


# ---- orders -----------------------------------------------------------------------


@register_tool("amazon__place_order", group=APP)
def place_order(env: ToolEnv, args: OrderArgs) -> dict[str, Any]:
    """Buy everything in the cart, shipped to an address and paid with a card of the shopper's."""
    with _shopper(env) as (db, account):
        address = _own(db, AmazonAddress, args.address_id, account, "address")
        card = _own(db, AmazonPaymentCard, args.payment_card_id, account, "payment card")
        today = now(db)
        if (card.expiry_year, card.expiry_month) < (today.year, today.month):
            raise ToolError(f"payment card {card.id} expired in {card.expiry_year:04d}-{card.expiry_month:02d}")
        items = db.exec(select(AmazonCartItem).where(AmazonCartItem.account_id == account.id)).all()
        if not items:
            raise ToolError("the cart is empty")
        order = AmazonOrder(account_id=account.id, address_id=address.id, payment_card_id=card.id, created_at=today)
        db.add(order)
        db.flush()
        total = 0.0
        for item in items:
            product = get_row(db, AmazonProduct, item.product_id, "product")
            _check_stock(product, item.quantity)
            product.stock -= item.quantity
            total += product.price * item.quantity
            db.add(AmazonOrderItem(order_id=order.id, product_id=product.id, quantity=item.quantity, unit_price=product.price))
            db.delete(item)
        return {"order_id": order.id, "message": f"Order {order.id} placed.", "total": _money(total)}


@register_tool("amazon__show_orders", group=APP)
def show_orders(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the shopper's orders, newest first."""
    with _shopper(env) as (db, account):
        query = select(AmazonOrder).where(AmazonOrder.account_id == account.id)
        rows = db.exec(query.order_by(col(AmazonOrder.created_at).desc(), col(AmazonOrder.id).desc())).all()
        return [_order_view(db, o, detailed=False) for o in paginate(list(rows), args)]


@register_tool("amazon__show_order", group=APP)
def show_order(env: ToolEnv, args: OrderIdArgs) -> dict[str, Any]:
    """Show one order: items, unit prices, total, address and card."""
    with _shopper(env) as (db, account):
        return _order_view(db, _own(db, AmazonOrder, args.order_id, account, "order"), detailed=True)


@register_tool("amazon__show_product_purchases", group=APP)
def show_product_purchases(env: ToolEnv, args: ProductArgs) -> list[dict[str, Any]]:
    """List every time the shopper bought a given product, newest first."""
    with _shopper(env) as (db, account):
        get_row(db, AmazonProduct, args.product_id, "product")
        return _purchases(db, account, args.product_id)


@register_tool("amazon__show_last_product_purchase", group=APP)
def show_last_product_purchase(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Show the most recently bought product (order, quantity, price)."""
    with _shopper(env) as (db, account):
        purchases = _purchases(db, account)
        if not purchases:
            raise ToolError("you have not bought anything yet")
        return purchases[0]


@register_tool("amazon__show_recommended_products", group=APP)
def show_recommended_products(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """Recommend in-stock products of the types the shopper bought, viewed or wished for, best rated first."""
    with _shopper(env) as (db, account):
        owned = {p["product_id"] for p in _purchases(db, account)}
        listed = set(_account_products(db, AmazonWishListItem, account)) | set(_account_products(db, AmazonCartItem, account))
        seen = set(_account_products(db, AmazonHistoryItem, account))
        products = db.exec(select(AmazonProduct).order_by(col(AmazonProduct.id))).all()
        liked_types = {p.product_type_id for p in products if p.id in owned | listed | seen}
        views = [
            _product_view(db, p)
            for p in products
            if p.stock > 0 and p.id not in owned | listed and (not liked_types or p.product_type_id in liked_types)
        ]
        views.sort(key=lambda v: (-v["rating"], -v["num_ratings"], v["product_id"]))
        return paginate(views, args)
