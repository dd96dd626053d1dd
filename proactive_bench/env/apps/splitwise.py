"""A simulated Splitwise: groups of people who share expenses and see who owes whom.

Tables: ``splitwise_user`` (everyone on Splitwise: name, email, optional password to log in),
``splitwise_group`` and ``splitwise_group_member``, ``splitwise_expense`` (one payer and the
amount paid) and ``splitwise_debt`` (each debtor's share of an expense). Balances are never
stored: they are computed from the debts (a debt of the payer to themself counts for nothing)
and rounded to cents. Users are addressed by email in every tool.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlmodel import Field, Session, col, func, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    foreign_key,
    get_row,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "splitwise"


class SplitwiseUser(AppModel, table=True):
    __tablename__ = "splitwise_user"
    id: int = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    password: str | None = None


class SplitwiseGroup(AppModel, table=True):
    __tablename__ = "splitwise_group"
    id: int = Field(default=None, primary_key=True)
    name: str
    created_by: int = foreign_key("splitwise_user.id")
    created_at: NaiveDatetime


class SplitwiseGroupMember(AppModel, table=True):
    __tablename__ = "splitwise_group_member"
    id: int = Field(default=None, primary_key=True)
    group_id: int = foreign_key("splitwise_group.id")
    user_id: int = foreign_key("splitwise_user.id")


class SplitwiseExpense(AppModel, table=True):
    __tablename__ = "splitwise_expense"
    id: int = Field(default=None, primary_key=True)
    group_id: int = foreign_key("splitwise_group.id")
    payer_id: int = foreign_key("splitwise_user.id")
    paid_amount: float = Field(gt=0)
    description: str = ""
    created_by: int = foreign_key("splitwise_user.id")
    created_at: NaiveDatetime


class SplitwiseDebt(AppModel, table=True):
    __tablename__ = "splitwise_debt"
    id: int = Field(default=None, primary_key=True)
    expense_id: int = foreign_key("splitwise_expense.id")
    debtor_id: int = foreign_key("splitwise_user.id")
    amount: float = Field(gt=0)


def _find_account(db: Session, email: str) -> SplitwiseUser | None:
    """The account logged in as exactly ``email``."""
    return db.exec(select(SplitwiseUser).where(SplitwiseUser.email == email)).first()


register_app(
    AppSpec(
        APP,
        "Shared expenses: groups, who paid what for whom, and who owes whom.",
        (SplitwiseUser, SplitwiseGroup, SplitwiseGroupMember, SplitwiseExpense, SplitwiseDebt),
        find_account=_find_account,
    )
)


# ---- shared helpers ---------------------------------------------------------------


def _session(env: ToolEnv) -> AbstractContextManager[tuple[Session, SplitwiseUser]]:
    """A transaction together with the logged-in user."""
    return logged_in(env, APP)


def _cents(value: float) -> float:
    return round(value + 1e-9, 2) + 0.0


def _user(db: Session, email: str) -> SplitwiseUser:
    user = db.exec(select(SplitwiseUser).where(func.lower(SplitwiseUser.email) == email.strip().lower())).first()
    if user is None:
        raise ToolError(f"no Splitwise user with email {email!r}; use splitwise__search_users")
    return user


def _person(user: SplitwiseUser) -> dict[str, Any]:
    return {"name": user.name, "email": user.email}


def _member_ids(db: Session, group_id: int) -> list[int]:
    query = select(SplitwiseGroupMember.user_id).where(SplitwiseGroupMember.group_id == group_id)
    return list(db.exec(query.order_by(col(SplitwiseGroupMember.id))).all())


def _my_group(db: Session, me: SplitwiseUser, group_id: int) -> SplitwiseGroup:
    """A group the user belongs to (others' groups look like unknown ids)."""
    group = db.get(SplitwiseGroup, group_id)
    if group is None or me.id not in _member_ids(db, group_id):
        raise ToolError(f"no group with id {group_id} among your groups")
    return group


def _my_expense(db: Session, me: SplitwiseUser, expense_id: int) -> SplitwiseExpense:
    """An expense the user may change: they recorded or paid it."""
    expense = db.get(SplitwiseExpense, expense_id)
    if expense is None or me.id not in _member_ids(db, expense.group_id):
        raise ToolError(f"no expense with id {expense_id} in your groups")
    if me.id not in (expense.created_by, expense.payer_id):
        raise ToolError(f"only the payer or the person who recorded expense {expense_id} can change it")
    return expense


def _group_member(db: Session, group_id: int, email: str) -> SplitwiseUser:
    user = _user(db, email)
    if user.id not in _member_ids(db, group_id):
        raise ToolError(f"{user.email} is not a member of group {group_id}; add them with splitwise__add_member_to_group")
    return user


def _debts(db: Session, expense_id: int) -> list[SplitwiseDebt]:
    query = select(SplitwiseDebt).where(SplitwiseDebt.expense_id == expense_id)
    return list(db.exec(query.order_by(col(SplitwiseDebt.id))).all())


def _set_debts(db: Session, expense: SplitwiseExpense, emails: list[str], amounts: list[float]) -> None:
    """Replace an expense's debts after checking them against its group and paid amount."""
    if len(emails) != len(amounts):
        raise ToolError(f"debtor_emails has {len(emails)} entries but debt_amounts has {len(amounts)}")
    if not emails:
        raise ToolError("an expense needs at least one debtor")
    if any(amount <= 0 for amount in amounts):
        raise ToolError("every debt amount must be greater than 0")
    if sum(amounts) > expense.paid_amount + 0.01:
        raise ToolError(f"the debts add up to {_cents(sum(amounts))}, more than the paid amount {_cents(expense.paid_amount)}")
    debtors = [_group_member(db, expense.group_id, email) for email in emails]
    if len({d.id for d in debtors}) != len(debtors):
        raise ToolError("debtor_emails lists someone twice")
    for debt in _debts(db, expense.id):
        db.delete(debt)
    db.add_all(SplitwiseDebt(expense_id=expense.id, debtor_id=d.id, amount=_cents(a)) for d, a in zip(debtors, amounts, strict=True))


def _transfers(db: Session, group_id: int | None = None) -> Iterator[tuple[int, int, float, int]]:
    """(debtor id, payer id, amount, group id) for every debt that is owed to someone else."""
    query = select(SplitwiseDebt, SplitwiseExpense).where(SplitwiseDebt.expense_id == SplitwiseExpense.id)
    if group_id is not None:
        query = query.where(SplitwiseExpense.group_id == group_id)
    for debt, expense in db.exec(query).all():
        if debt.debtor_id != expense.payer_id:
            yield debt.debtor_id, expense.payer_id, debt.amount, expense.group_id


def _balances_with(db: Session, me: SplitwiseUser) -> dict[tuple[int, int], float]:
    """What each (other user, group) owes the user; negative when the user owes them."""
    owed: dict[tuple[int, int], float] = defaultdict(float)
    for debtor, payer, amount, group_id in _transfers(db):
        if payer == me.id:
            owed[debtor, group_id] += amount
        elif debtor == me.id:
            owed[payer, group_id] -= amount
    return owed


def _expense_view(db: Session, expense: SplitwiseExpense) -> dict[str, Any]:
    return {
        "expense_id": expense.id,
        "group_id": expense.group_id,
        "description": expense.description,
        "paid_amount": _cents(expense.paid_amount),
        "payer_email": get_row(db, SplitwiseUser, expense.payer_id, "user").email,
        "debts": [
            {"email": get_row(db, SplitwiseUser, d.debtor_id, "user").email, "amount": _cents(d.amount)} for d in _debts(db, expense.id)
        ],
        "created_at": expense.created_at.isoformat(),
    }


# ---- argument models --------------------------------------------------------------


class QueryArgs(PageArgs):
    query: str | None = Arg(default=None, description="Words to search for in names and emails; empty lists all.")


class CreateGroupArgs(BaseModel):
    name: str = Arg(min_length=1, description="The group's name.")
    member_emails: list[str] = Arg(description="Emails of the members besides you (you are added automatically).")


class GroupArgs(BaseModel):
    group_id: int = Arg(description="The group's id.")


class GroupPageArgs(GroupArgs, PageArgs):
    pass


class AddMemberArgs(GroupArgs):
    user_email: str = Arg(description="Email of the Splitwise user to add.")


class RecordExpenseArgs(GroupArgs):
    paid_amount: float = Arg(gt=0, description="The total amount the payer paid.")
    payer_email: str = Arg(description="Email of the member who paid.")
    debtor_emails: list[str] = Arg(description="Emails of the members who owe a share (may include the payer).")
    debt_amounts: list[float] = Arg(description="Each debtor's share, in the order of debtor_emails.")
    description: str = Arg(default="", description="What the expense was for.")


class ExpenseArgs(BaseModel):
    expense_id: int = Arg(description="The expense's id.")


class UpdateExpenseArgs(ExpenseArgs):
    description: str | None = Arg(default=None, description="New description.")
    paid_amount: float | None = Arg(default=None, gt=0, description="New paid amount.")
    debtor_emails: list[str] | None = Arg(default=None, description="New debtors (give debt_amounts too).")
    debt_amounts: list[float] | None = Arg(default=None, description="New shares, in the order of debtor_emails.")


class PersonArgs(BaseModel):
    user_email: str = Arg(description="The other person's email.")


# ---- tools ------------------------------------------------------------------------


@register_tool("splitwise__search_users", group=APP)
def search_users(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """Search Splitwise users by name or email."""
    with _session(env) as (db, _):
        users = [
            u for u in db.exec(select(SplitwiseUser).order_by(col(SplitwiseUser.id))).all() if matches_query(args.query, u.name, u.email)
        ]
        return [_person(u) for u in paginate(users, args)]


@register_tool("splitwise__create_group", group=APP)
def create_group(env: ToolEnv, args: CreateGroupArgs) -> dict[str, Any]:
    """Create a group with the given members; you are a member too."""
    with _session(env) as (db, me):
        members = [me] + [_user(db, email) for email in args.member_emails]
        group = SplitwiseGroup(name=args.name, created_by=me.id, created_at=now(db))
        db.add(group)
        db.flush()
        ids = list(dict.fromkeys(m.id for m in members))
        db.add_all(SplitwiseGroupMember(group_id=group.id, user_id=user_id) for user_id in ids)
        return {"group_id": group.id, "message": f"Created group {args.name!r} with {len(ids)} members."}


@register_tool("splitwise__add_member_to_group", group=APP)
def add_member_to_group(env: ToolEnv, args: AddMemberArgs) -> dict[str, Any]:
    """Add a Splitwise user to one of your groups."""
    with _session(env) as (db, me):
        group = _my_group(db, me, args.group_id)
        user = _user(db, args.user_email)
        if user.id in _member_ids(db, group.id):
            raise ToolError(f"{user.email} is already a member of group {group.id}")
        db.add(SplitwiseGroupMember(group_id=group.id, user_id=user.id))
        return {"message": f"Added {user.name} ({user.email}) to {group.name!r}."}


def _group_view(db: Session, group: SplitwiseGroup) -> dict[str, Any]:
    expenses = db.exec(select(SplitwiseExpense.id).where(SplitwiseExpense.group_id == group.id)).all()
    return {
        "group_id": group.id,
        "name": group.name,
        "created_by": get_row(db, SplitwiseUser, group.created_by, "user").email,
        "created_at": group.created_at.isoformat(),
        "members": [_person(get_row(db, SplitwiseUser, i, "user")) for i in _member_ids(db, group.id)],
        "expense_count": len(expenses),
    }


@register_tool("splitwise__show_groups", group=APP)
def show_groups(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """List your groups, newest first, optionally filtered by name."""
    with _session(env) as (db, me):
        query = select(SplitwiseGroup).join(SplitwiseGroupMember).where(SplitwiseGroupMember.user_id == me.id)
        groups = db.exec(query.order_by(col(SplitwiseGroup.created_at).desc(), col(SplitwiseGroup.id).desc())).all()
        return [_group_view(db, g) for g in paginate([g for g in groups if matches_query(args.query, g.name)], args)]


@register_tool("splitwise__show_group", group=APP)
def show_group(env: ToolEnv, args: GroupArgs) -> dict[str, Any]:
    """Show one of your groups: its members and how many expenses it has."""
    with _session(env) as (db, me):
        return _group_view(db, _my_group(db, me, args.group_id))


@register_tool("splitwise__record_expense", group=APP)
def record_expense(env: ToolEnv, args: RecordExpenseArgs) -> dict[str, Any]:
    """Record that a member paid an amount and which members owe how much of it."""
    with _session(env) as (db, me):
        group = _my_group(db, me, args.group_id)
        payer = _group_member(db, group.id, args.payer_email)
        expense = SplitwiseExpense(
            group_id=group.id,
            payer_id=payer.id,
            paid_amount=_cents(args.paid_amount),
            description=args.description,
            created_by=me.id,
            created_at=now(db),
        )
        db.add(expense)
        db.flush()
        _set_debts(db, expense, args.debtor_emails, args.debt_amounts)
        return {"expense_id": expense.id, "message": f"Recorded {expense.paid_amount:.2f} paid by {payer.name} in {group.name!r}."}


@register_tool("splitwise__update_expense", group=APP)
def update_expense(env: ToolEnv, args: UpdateExpenseArgs) -> dict[str, Any]:
    """Change an expense's description, paid amount or debts (debtor_emails and debt_amounts go together)."""
    with _session(env) as (db, me):
        expense = _my_expense(db, me, args.expense_id)
        if (args.debtor_emails is None) != (args.debt_amounts is None):
            raise ToolError("give debtor_emails and debt_amounts together")
        if args.description is not None:
            expense.description = args.description
        if args.paid_amount is not None:
            expense.paid_amount = _cents(args.paid_amount)
        if args.debtor_emails is not None and args.debt_amounts is not None:
            _set_debts(db, expense, args.debtor_emails, args.debt_amounts)
        elif sum(d.amount for d in _debts(db, expense.id)) > expense.paid_amount + 0.01:
            raise ToolError("the existing debts add up to more than the new paid amount; give new debt_amounts")
        return {"message": f"Updated expense {expense.id}."}


@register_tool("splitwise__delete_expense", group=APP)
def delete_expense(env: ToolEnv, args: ExpenseArgs) -> dict[str, Any]:
    """Delete an expense you recorded or paid."""
    with _session(env) as (db, me):
        expense = _my_expense(db, me, args.expense_id)
        for debt in _debts(db, expense.id):
            db.delete(debt)
        db.flush()
        db.delete(expense)
        return {"message": f"Deleted expense {expense.id}."}


@register_tool("splitwise__show_group_expenses", group=APP)
def show_group_expenses(env: ToolEnv, args: GroupPageArgs) -> list[dict[str, Any]]:
    """List a group's expenses, newest first, with who paid and who owes what."""
    with _session(env) as (db, me):
        group = _my_group(db, me, args.group_id)
        query = select(SplitwiseExpense).where(SplitwiseExpense.group_id == group.id)
        rows = db.exec(query.order_by(col(SplitwiseExpense.created_at).desc(), col(SplitwiseExpense.id).desc())).all()
        return [_expense_view(db, e) for e in paginate(list(rows), args)]


@register_tool("splitwise__show_group_balance", group=APP)
def show_group_balance(env: ToolEnv, args: GroupArgs) -> list[dict[str, Any]]:
    """Each member's net balance in a group: positive means they are owed money, negative that they owe."""
    with _session(env) as (db, me):
        group = _my_group(db, me, args.group_id)
        net: dict[int, float] = defaultdict(float)
        for debtor, payer, amount, _ in _transfers(db, group.id):
            net[payer] += amount
            net[debtor] -= amount
        return [_person(get_row(db, SplitwiseUser, i, "user")) | {"balance": _cents(net[i])} for i in _member_ids(db, group.id)]


@register_tool("splitwise__show_people_balance", group=APP)
def show_people_balance(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """Everyone you have an open balance with across groups: positive means they owe you, negative that you owe them."""
    with _session(env) as (db, me):
        totals: dict[int, float] = defaultdict(float)
        for (other, _), amount in _balances_with(db, me).items():
            totals[other] += amount
        people = [(_cents(amount), get_row(db, SplitwiseUser, other, "user")) for other, amount in totals.items()]
        people.sort(key=lambda p: (-p[0], p[1].email))
        return [_person(user) | {"balance": balance} for balance, user in people if balance != 0]


@register_tool("splitwise__show_person_balance", group=APP)
def show_person_balance(env: ToolEnv, args: PersonArgs) -> dict[str, Any]:
    """Your balance with one person, in total and per group: positive means they owe you."""
    with _session(env) as (db, me):
        other = _user(db, args.user_email)
        per_group = sorted((g, a) for (o, g), a in _balances_with(db, me).items() if o == other.id and _cents(a) != 0)
        return _person(other) | {
            "balance": _cents(sum(a for _, a in per_group)),
            "groups": [
                {"group_id": g, "group_name": get_row(db, SplitwiseGroup, g, "group").name, "balance": _cents(a)} for g, a in per_group
            ],
        }
