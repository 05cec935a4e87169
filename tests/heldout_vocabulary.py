"""Held-out phrasings for the wider vocabulary (issue 12), written BEFORE the rules for it.

Written as an agent's user would say things, before any rule for these predicates existed, and
not changed to fit the rules afterwards (misses stay misses). Each row: speaker, text, expected
(subject, predicate, object key, kind). An object matches when its normalised form contains the
key (or the key contains it). Kind "end" means the fact stopped holding (quitting a job).
"""

from __future__ import annotations

HELD_OUT_VOCABULARY: list[tuple[str, str, list[tuple[str, str, str, str]]]] = [
    # name and contact details
    ("user", "Hi! My name is Priya, nice to meet you.", [("user", "name", "Priya", "assert")]),
    ("user", "Please call me Sam.", [("user", "name", "Sam", "assert")]),
    (
        "user",
        "You can reach me at priya.k@example.com if anything changes.",
        [("user", "email", "priya.k@example.com", "assert")],
    ),
    ("user", "My email is jordan_b@mailbox.org.", [("user", "email", "jordan_b@mailbox.org", "assert")]),
    ("user", "My phone number is 555-867-5309.", [("user", "phone", "555 867 5309", "assert")]),
    ("user", "Sorry, my number is actually (415) 555-0132.", [("user", "phone", "415 555 0132", "assert")]),
    (
        "user",
        "My new address is 42 Maple Avenue, Springfield.",
        [("user", "address", "42 Maple Avenue", "assert")],
    ),
    ("user", "I live at 17 Rue Cler in Paris.", [("user", "address", "17 Rue Cler", "assert")]),
    # diet
    ("user", "Actually, I'm vegetarian now.", [("user", "diet", "vegetarian", "assert")]),
    ("user", "I went vegan last month.", [("user", "diet", "vegan", "assert")]),
    ("user", "I've been keto since January.", [("user", "diet", "keto", "assert")]),
    (
        "user",
        "I'm not vegetarian, I just don't like mushrooms.",
        [("user", "dislikes", "mushrooms", "assert")],
    ),
    # favourites
    (
        "user",
        "My favourite colour is teal.",
        [("user", "favourite_colour", "teal", "assert"), ("user", "likes", "teal", "assert")],
    ),
    (
        "user",
        "My favorite band is Radiohead.",
        [("user", "favourite_band", "Radiohead", "assert"), ("user", "likes", "Radiohead", "assert")],
    ),
    ("user", "Pho is my favourite food.", [("user", "favourite_food", "Pho", "assert")]),
    # reading / watching / learning
    ("user", "I'm reading The Overstory right now.", [("user", "reading", "The Overstory", "assert")]),
    (
        "user",
        "I just started reading Project Hail Mary.",
        [("user", "reading", "Project Hail Mary", "assert")],
    ),
    ("user", "We've been watching Severance lately.", [("user", "watching", "Severance", "assert")]),
    (
        "user",
        "I'm learning Japanese for our trip.",
        [("user", "learning", "Japanese", "assert"), ("user", "studies", "Japanese", "assert")],
    ),
    ("user", "I finished reading Dune yesterday.", [("user", "reading", "Dune", "end")]),
    # pets with names
    ("user", "We got a kitten and named her Mochi.", [("user", "has_pet", "Mochi", "assert")]),
    ("user", "My dog's name is Pepper.", [("user", "has_pet", "Pepper", "assert")]),
    ("user", "Our golden retriever Bruno turned five today.", [("user", "has_pet", "Bruno", "assert")]),
    # family
    (
        "user",
        "My sister Ana lives in Madrid.",
        [("user", "has_sibling", "Ana", "assert"), ("Ana", "lives_in", "Madrid", "assert")],
    ),
    ("user", "I have two brothers.", [("user", "has_sibling", "two brothers", "assert")]),
    (
        "user",
        "My husband Tom is a chef.",
        [
            ("user", "has_partner", "Tom", "assert"),
            ("user", "relationship_status", "married", "assert"),
            ("Tom", "job_title", "chef", "assert"),
        ],
    ),
    (
        "user",
        "My wife's name is Maria.",
        [("user", "has_partner", "Maria", "assert"), ("user", "relationship_status", "married", "assert")],
    ),
    ("user", "My mom, Linda, is visiting this weekend.", [("user", "has_parent", "Linda", "assert")]),
    ("user", "My son Leo just turned seven.", [("user", "has_child", "Leo", "assert")]),
    # health
    (
        "user",
        "I was diagnosed with type 2 diabetes last year.",
        [("user", "health_condition", "type 2 diabetes", "assert")],
    ),
    ("user", "I have asthma, so running is hard.", [("user", "health_condition", "asthma", "assert")]),
    ("user", "I'm allergic to peanuts.", [("user", "allergy", "peanuts", "assert")]),
    ("user", "I have a severe shellfish allergy.", [("user", "allergy", "shellfish", "assert")]),
    ("user", "I suffer from migraines.", [("user", "health_condition", "migraines", "assert")]),
    # jobs: quitting, offers
    ("user", "I quit Acme Corp last Friday.", [("user", "works_at", "Acme Corp", "end")]),
    ("user", "I left my job at Initech in March.", [("user", "works_at", "Initech", "end")]),
    (
        "user",
        "I accepted an offer from Globex, I will be a product manager there, starting in July.",
        [("user", "works_at", "Globex", "assert"), ("user", "job_title", "product manager", "assert")],
    ),
    (
        "user",
        "I'm starting at Stripe next month as a data engineer.",
        [("user", "works_at", "Stripe", "assert"), ("user", "job_title", "data engineer", "assert")],
    ),
    ("user", "I got laid off from Wayfair.", [("user", "works_at", "Wayfair", "end")]),
    # moves with planned dates
    (
        "user",
        "We're moving to Seattle next month.",
        [("user", "lives_in", "Seattle", "assert"), ("user", "plans_to", "Seattle", "assert")],
    ),
    (
        "user",
        "I'm relocating to Denver in September.",
        [("user", "lives_in", "Denver", "assert"), ("user", "plans_to", "Denver", "assert")],
    ),
    # revoked plans
    ("user", "We cancelled the trip to Japan.", [("user", "plans_to", "Japan", "retract")]),
    ("user", "We called off the move to Austin.", [("user", "plans_to", "Austin", "retract")]),
    # forget requests
    (
        "user",
        "Please forget my social security number.",
        [("user", "forget_request", "social security number", "assert")],
    ),
    ("user", "Delete my medical information.", [("user", "forget_request", "medical information", "assert")]),
    ("user", "I don't want to talk about Alex anymore.", [("user", "forget_request", "Alex", "assert")]),
    ("user", "Forget what I said about my address.", [("user", "forget_request", "address", "assert")]),
    ("user", "Don't remember my phone number.", [("user", "forget_request", "phone number", "assert")]),
    ("user", "Can you stop remembering where I work?", []),
    # negatives: questions, hypotheticals, the listener, other people's things
    ("user", "What's a good vegetarian recipe?", []),
    ("user", "If I went vegan, would I get enough protein?", []),
    ("user", "My friend's email is bob@example.com.", []),
    ("user", "Is your favourite colour blue?", []),
    ("user", "I might quit my job someday.", []),
    ("user", "Should I read Dune next?", []),
    ("user", "Forget it, it doesn't matter.", []),
    ("user", "I can't remember my phone number off the top of my head.", []),
    ("user", "The doctor said my blood pressure is fine.", []),
    ("user", "Call me when you land.", []),
]
