"""The words the name finder knows: honorifics (by gender), abbreviations that take a dot,
connectors inside names ("de", "van"), capitalised words that are not names, common words, and
words that end a place's name ("Street", "Hall").

Plain data, kept apart from the rules that use them so the lists can be read in one place.
"""

from __future__ import annotations

MALE = {
    "Mr",
    "Mister",
    "Sir",
    "Lord",
    "Master",
    "Monsieur",
    "King",
    "Prince",
    "Duke",
    "Count",
    "Baron",
    "Father",
    "Brother",
    "Uncle",
    "Signor",
    "Herr",
    "Don",
}
FEMALE = {
    "Mrs",
    "Miss",
    "Ms",
    "Lady",
    "Madame",
    "Mme",
    "Mlle",
    "Dame",
    "Queen",
    "Princess",
    "Duchess",
    "Countess",
    "Sister",
    "Aunt",
    "Signora",
    "Frau",
    "Mademoiselle",
}
NEUTRAL = {
    "Dr",
    "Doctor",
    "Colonel",
    "Col",
    "Captain",
    "Capt",
    "Major",
    "General",
    "Gen",
    "Lieutenant",
    "Lt",
    "Sergeant",
    "Sgt",
    "Inspector",
    "Professor",
    "Prof",
    "Rev",
    "Reverend",
    "Elder",
    "Judge",
    "Bishop",
    "Constable",
    "Governor",
    "President",
}
TITLES = MALE | FEMALE | NEUTRAL
FIRST_NAME_TITLES = {"Sir", "Dame"}
ABBREVIATED = {"Mr", "Mrs", "Ms", "Dr", "Mme", "Mlle", "Col", "Capt", "Gen", "Lt", "Sgt", "Prof", "Rev", "St"}
CONNECTORS = {"de", "van", "von", "du", "da", "del", "della", "di", "le", "la", "der", "den"}
# words inside a surname that name no one on their own: connectors and the saint's "St."
PARTICLES = CONNECTORS | {"St."}
NOT_NAMES = set(
    """
    I O Oh Ah Ay Aye Yes No Nay Well Why Hullo Hello Alas Chapter Part Book Volume Contents
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December God Heaven Heavens Christmas Lord
    Sir Madam Ma'am Sahib Mamma Papa English French German Italian Spanish Christian Bible Amen
    Mr Mrs Miss Ms Dr Esq Street Road Square Mister Doctor Colonel Captain Major Inspector Lady
    """.split()
)
# words that open sentences without naming anyone. Whether a word is "usually written in lower
# case" is judged with the text read so far, so the opening chapters have little to go on: this
# list stands in for what any English text shows sooner or later.
_COMMON_WORDS = """
    the a an and but or nor so yet for then than when while where whence why how what who whom
    which that this these those there here now once after before since until though although
    if unless because as at by in on of off to from with without into onto upon over under
    again also still even just only very too not no yes all any both each every few many most
    some such one two three four five first next last another other he she it we they you i
    his her its our their your my me him us them said says say do does did done have has had
    be is are was were been being will would shall should can could may might must let poor
    dear good well oh ah perhaps indeed surely certainly however meanwhile later soon presently
    suddenly finally above below between within behind beside besides along across around
    sometimes often never always already almost nearly quite rather really probably possibly
    scarcely hardly merely simply twice thrice afterwards instead otherwise therefore thus hence
    yesterday today tonight tomorrow everywhere somewhere nowhere anywhere whatever whoever
    whenever wherever whether either neither nothing something anything everything nobody
    somebody anybody everybody none someone anyone everyone yours ours theirs mine hers myself
    yourself himself herself itself ourselves themselves six seven eight nine ten eleven twelve
    twenty hundred thousand second third half
    ha hah hum hem hm pooh pshaw bah hush eh nay yea lo hark ugh hurrah bravo hallo hullo hello
    thank thanks please pray fancy look come go see tell give take make think know hear wait stop
    listen remember mind try why never
    it's that's there's here's what's who's where's how's i'm i've i'll i'd you're you've you'll
    you'd he's she's we're we've we'll they're they've they'll don't doesn't didn't can't won't
    isn't wasn't aren't weren't couldn't wouldn't shouldn't mustn't haven't hasn't hadn't let's
    ain't shan't
    """.split()
COMMON = frozenset(_COMMON_WORDS) | frozenset(w.replace("'", "’") for w in _COMMON_WORDS)
PLACE_WORDS = {
    "Street",
    "Road",
    "Gardens",
    "Square",
    "Lane",
    "Hall",
    "Park",
    "House",
    "City",
    "Yard",
    "Hotel",
    "Terrace",
    "Place",
    "Court",
    "River",
    "Lake",
    "Hill",
    "Moor",
    "Station",
    "Castle",
    "Abbey",
    "Church",
    "Inn",
    "Bridge",
    "Avenue",
    "Crescent",
    "Mountains",
    "Valley",
    "Island",
    "Islands",
    "Hills",
    "Town",
    "Village",
    "Row",
    "Cross",
    "Green",
    "Manor",
    "Lodge",
    "Grange",
    "Plain",
    "Canyon",
    "Creek",
    "Falls",
    "Sea",
    "Ocean",
}
