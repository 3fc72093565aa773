"""Given names: the nicknames that stand for them and the gender they usually say.

Evidence the grouping weighs beside titles and pronouns: "Lizzy" and "Eliza" are short for
"Elizabeth", so they may join "Elizabeth Bennet"; "Arthur" is a man's name, so "Madame
Charpentier" (a woman's title) is not "Arthur Charpentier", whatever pronoun follows his name.
A name missing here says nothing: the grouping falls back on titles and pronouns.

Plain data, like `words`, kept in one place to be read and extended.
"""

from __future__ import annotations

_NICKNAMES = {
    "Elizabeth": "Eliza Lizzy Lizzie Liz Lisa Beth Betsy Betsey Bess Bessie Betty Libby",
    "Catherine": "Kitty Kate Katie Kit Cathy",
    "Katherine": "Kitty Kate Katie Kit Kathy",
    "Margaret": "Peggy Meg Maggie Madge Daisy",
    "Mary": "Polly Molly Mamie",
    "Sarah": "Sally Sukey",
    "Martha": "Patty Mattie",
    "Frances": "Fanny Fan",
    "Jane": "Jenny Janey",
    "Anne": "Annie Nan Nancy Nanny",
    "Ann": "Annie Nan Nancy",
    "Helen": "Nell Nelly",
    "Eleanor": "Nell Nelly Ellie",
    "Charlotte": "Lottie Lotty",
    "Dorothy": "Dolly Dora Dot",
    "Susan": "Sue Sukey Susie",
    "Georgiana": "Georgie",
    "Caroline": "Carrie Caro",
    "Louisa": "Lou Louie",
    "Harriet": "Hattie",
    "Isabella": "Bella Isa",
    "Henrietta": "Hetty Etta",
    "John": "Jack Johnny",
    "William": "Will Willy Willie Bill Billy",
    "Robert": "Bob Bobby Rob Robin",
    "Richard": "Dick Dicky Rick",
    "Henry": "Harry Hal Hank",
    "Edward": "Ned Ted Teddy Eddie",
    "Thomas": "Tom Tommy",
    "James": "Jim Jimmy Jem Jamie",
    "Joseph": "Joe Joey",
    "Samuel": "Sam Sammy",
    "Benjamin": "Ben Benny",
    "Charles": "Charlie Chas",
    "Frederick": "Fred Freddy Freddie",
    "George": "Georgie",
    "Anthony": "Tony",
    "Nicholas": "Nick",
    "Matthew": "Matt",
    "Andrew": "Andy",
    "Michael": "Mike Mick",
    "Daniel": "Dan Danny",
    "Alfred": "Alf Alfie",
    "Albert": "Bertie Bert",
    "Herbert": "Bertie Bert",
    "Archibald": "Archie",
    "Augustus": "Gus",
    "Christopher": "Kit Chris",
    "Jonathan": "Jon",
    "Theodore": "Teddy Theo",
    "Lawrence": "Larry",
    "Patrick": "Pat Paddy",
    "Peter": "Pete",
}

# nickname -> the given names it may stand for
NICKNAMES: dict[str, frozenset[str]] = {}
for _formal, _short in _NICKNAMES.items():
    for _nick in _short.split():
        NICKNAMES[_nick] = NICKNAMES.get(_nick, frozenset()) | {_formal}

_FEMALE = """
    Elizabeth Catherine Katherine Margaret Mary Sarah Martha Frances Jane Anne Ann Helen Eleanor
    Charlotte Dorothy Susan Georgiana Caroline Louisa Harriet Isabella Henrietta Lucy Alice Emma
    Emily Lydia Maria Marianne Elinor Fanny Julia Agnes Edith Florence Grace Hannah Rose Ellen
    Laura Clara Amelia Sophia Sophie Rebecca Rachel Esther Ruth Violet Beatrice Hester Matilda
    Lucretia Judith Kate Kitty Lizzy Eliza Polly Molly Sally Nancy Betsy Peggy Jenny Dolly Nelly
    Victoria Adelaide Ada Bertha Cecilia Cecily Constance Diana Evelyn Gertrude Irene Josephine
    Lavinia Mabel Maud Miriam Olivia Phoebe Priscilla Rosamund Sybil Theresa Ursula Winifred
    Laura Beryl Stella Mildred Ethel Lilian Lillian Annie Jessie Janet Joan Jean Louise Marie
    """.split()
_MALE = """
    John William Robert Richard Henry Edward Thomas James Joseph Samuel Benjamin Charles
    Frederick George Anthony Nicholas Matthew Andrew Michael Daniel Alfred Albert Herbert
    Archibald Augustus Christopher Jonathan Theodore Lawrence Patrick Peter Arthur Francis
    Fitzwilliam Hugh Walter Ralph Roger Stephen Philip Paul Mark Luke Simon David Isaac Jacob
    Abraham Moses Aaron Adam Oliver Harold Ernest Edgar Edmund Edwin Gilbert Godfrey Gregory
    Humphrey Jasper Jeremiah Lewis Louis Martin Nathaniel Percy Rupert Sidney Timothy Victor
    Vincent Enoch Jefferson Tobias Jack Bill Bob Dick Harry Ned Tom Jim Joe Sam Ben Charlie Fred
    Mortimer Jonas Silas Elijah Ezra Josiah Cyrus Horace Reginald Cecil Basil Bartholomew
    Thaddeus Jonathan Neville Desmond Lionel Montague Stanley Wilfred Duncan Angus Ian Alexander
    """.split()
GIVEN_GENDER: dict[str, str] = {n: "f" for n in _FEMALE} | {n: "m" for n in _MALE}


def formal_names(first: str) -> frozenset[str]:
    """The given names a first name may be: itself, and what it is a nickname of."""
    return NICKNAMES.get(first, frozenset()) | {first}


def given_gender(full: str) -> str:
    """ "m"/"f" when a full name's first word is a given name known to be a man's or a woman's."""
    first = full.split(" ", 1)[0]
    return GIVEN_GENDER.get(first, "")


# given name -> the nicknames that may stand for it
SHORT_FORMS: dict[str, frozenset[str]] = {}
for _nick, _formals in NICKNAMES.items():
    for _formal in _formals:
        SHORT_FORMS[_formal] = SHORT_FORMS.get(_formal, frozenset()) | {_nick}
