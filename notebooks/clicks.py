"""Generated click data for the notebooks and the README figure.

Impressions of items shown to users of an online shop: does the user click?
Every row has six features a model can learn from (``age``, ``hour``, ``price``,
``relevance``, ``past_clicks``, ``country``), the ``user`` it was shown to and
the label ``clicked``.  The click probability is a logistic function of the
features with non-linear terms (a daily cycle, an age curve, an interaction of
relevance and age), a country effect and each user's own propensity, of which
``past_clicks`` is a noisy trace -- so a gradient-boosted model can beat a
linear one, and the AUC within each user (GAUC) is lower than the AUC over all
rows, as in real click data.

The users (their activity, country and propensity) are fixed by ``users``;
each call draws impressions for them from its own ``seed``, so partitions made
with different seeds are independent samples of one population.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COUNTRIES = ["BR", "DE", "FR", "GB", "IN", "JP", "MX", "US"]
#: log-odds added to every impression in each country
COUNTRY_EFFECT = np.array([0.3, -0.4, -0.2, 0.0, 0.5, -0.6, 0.2, 0.1])
FEATURES = ["age", "hour", "price", "relevance", "past_clicks", "country"]
_POPULATION_SEED = 2024


def click_rows(rows: int, seed: int, users: int) -> pd.DataFrame:
    """``rows`` impressions drawn for a population of ``users`` users.

    Examples
    --------
    >>> frame = click_rows(1000, seed=0, users=50)
    >>> list(frame.columns)
    ['user', 'age', 'hour', 'price', 'relevance', 'past_clicks', 'country', 'clicked']
    >>> bool(frame.user.between(0, 49).all()), sorted(frame.clicked.unique().tolist())
    (True, [0, 1])
    >>> frame.equals(click_rows(1000, seed=0, users=50))  # the seed fixes the rows
    True
    """
    population = np.random.default_rng(_POPULATION_SEED)
    activity = population.lognormal(0.0, 1.0, users)
    home = population.integers(0, len(COUNTRIES), users)
    age_of = population.integers(18, 76, users)
    propensity = population.normal(0.0, 0.8, users)

    rng = np.random.default_rng(seed)
    user = rng.choice(users, size=rows, p=activity / activity.sum())
    age = age_of[user]
    hour = rng.integers(0, 24, rows)
    price = rng.lognormal(3.0, 0.8, rows)
    relevance = rng.standard_normal(rows)
    past_clicks = rng.poisson(2.0 * np.exp(propensity[user]))
    logit = (
        -2.0
        + propensity[user]
        + COUNTRY_EFFECT[home[user]]
        + 1.5 * np.maximum(relevance, 0.0) * np.where(age < 35, 1.5, 0.7)
        + 0.8 * np.sin(2 * np.pi * (hour - 8) / 24)
        - 0.5 * (np.log(price) - 3.0) ** 2
        - 0.001 * (age - 40) ** 2
    )
    clicked = rng.random(rows) < 1.0 / (1.0 + np.exp(-logit))
    return pd.DataFrame(
        {
            "user": user.astype(np.int64),
            "age": age.astype(np.int64),
            "hour": hour.astype(np.int64),
            "price": price.round(2),
            "relevance": relevance,
            "past_clicks": past_clicks.astype(np.int64),
            "country": pd.Categorical.from_codes(home[user], COUNTRIES),
            "clicked": clicked.astype(np.int8),
        }
    )
