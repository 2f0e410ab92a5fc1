"""The self-written two-hop questions over HotpotQA's 1,021 paragraphs: bench/data/twohop_qa.jsonl.

    python bench/experiments/twohop_questions.py --write

Each question was written by hand from two paragraphs found to be linked (one names the other's title): a
*compositional* question asks an attribute of the entity a relation leads to ("When was the director of Sinister
born?"), an *inference* question a kinship or role relation composed of two stated ones ("Who was the mother-in-law
of Robert Barton?"), a *comparison* question the same attribute of two entities ("Who was born first, ...?").  Each
gold sentence is named by its document and a distinctive substring, which must occur in exactly one sentence
there.  Split (seeded, written before any run): a question touching a gold paragraph of HotpotQA's held-out half
is held out, one touching its dev half is dev, the rest fill the halves evenly.  Regression checks only: people's
questions (HotpotQA's) decide.
"""
# ruff: noqa: E501  (the question table: one question a line)
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT.parent / "shared" / "data" / "hotpotqa" / "docs"
C, N, P = "compositional", "inference", "comparison"
Q = [
# compositional: a relation leads to a second entity whose attribute is asked
(C, "When was the director of Sinister born?", "July 16, 1966", [("sinister-film", "directed by Scott Derrickson"), ("scott-derrickson", "born July 16, 1966")]),
(C, "When was the director of CrissCross born?", "15 September 1940", [("crisscross", "directed by Chris Menges"), ("chris-menges", "born 15 September 1940")]),
(C, "In which year was the director of the 1994 film Second Best born?", "1940", [("second-best-film", "directed by Chris Menges"), ("chris-menges", "born 15 September 1940")]),
(C, "When was the director of the 2014 horror film Deliver Us from Evil born?", "July 16, 1966", [("deliver-us-from-evil-2014-film", "directed by Scott Derrickson"), ("scott-derrickson", "born July 16, 1966")]),
(C, "What nationality is the director of Big Stone Gap?", "Italian American", [("big-stone-gap-film", "written and directed by Adriana Trigiani"), ("adriana-trigiani", "Italian American best-selling author")]),
(C, "When was the singer who recorded the album Against the Wind born?", "May 6, 1945", [("against-the-wind-album", "eleventh album by American rock singer Bob Seger"), ("bob-seger", "born May 6, 1945")]),
(C, "When was the rock singer whose tenth studio album is Stranger in Town born?", "May 6, 1945", [("stranger-in-town-album", "tenth studio album by American rock singer Bob Seger"), ("bob-seger", "born May 6, 1945")]),
(C, "In which town was the musician who released the single Silent Sigh born?", "Dunstable", [("silent-sigh", "single by British musical artist Badly Drawn Boy"), ("badly-drawn-boy", "in Dunstable, Bedfordshire")]),
(C, "What is the real name of the musician whose debut studio album is The Hour of Bewilderbeast?", "Damon Michael Gough", [("the-hour-of-bewilderbeast", "debut studio album by British musician Badly Drawn Boy"), ("badly-drawn-boy", "Damon Michael Gough")]),
(C, "In which town was the lead vocalist of Buck-Tick born?", "Fujioka, Gunma", [("buck-tick", "Atsushi Sakurai (lead vocals)"), ("atsushi-sakurai", "born March 7, 1966 in Fujioka")]),
(C, "When was the vocalist whose picture inspired Kyo to become a musician born?", "March 7, 1966", [("kyo-musician", "Buck-Tick vocalist Atsushi Sakurai"), ("atsushi-sakurai", "born March 7, 1966 in Fujioka")]),
(C, "When was the brother of Champ Bailey born?", "October 14, 1979", [("champ-bailey", "brother of former NFL linebacker Boss Bailey"), ("boss-bailey", "born October 14, 1979")]),
(C, "When was the brother of Boss Bailey born?", "June 22, 1978", [("boss-bailey", "brother of former NFL cornerback Champ Bailey"), ("champ-bailey", "born June 22, 1978")]),
(C, "When was the actress who played Corliss Archer in Kiss and Tell born?", "April 23, 1928", [("kiss-and-tell-1945-film", "starring then 17-year-old Shirley Temple"), ("shirley-temple", "April 23, 1928")]),
(C, "When was the actress who starred as PI Bobbi Bacha in Suburban Madness born?", "July 11, 1956", [("suburban-madness", "starring Sela Ward as PI Bobbi Bacha"), ("sela-ward", "born July 11, 1956")]),
(C, "When was the author of Seven Brief Lessons on Physics born?", "3 May 1956", [("seven-brief-lessons-on-physics", "short book by the Italian physicist Carlo Rovelli"), ("carlo-rovelli", "born 3 May 1956")]),
(C, "When did the author of the novel Orlando: A Biography die?", "28 March 1941", [("orlando-a-biography", "novel by Virginia Woolf"), ("virginia-woolf", "25 January 1882")]),
(C, "When was the author of the story The Mark on the Wall born?", "25 January 1882", [("the-mark-on-the-wall", "first published story by Virginia Woolf"), ("virginia-woolf", "25 January 1882")]),
(C, "When was the writer of the play on which the chamber opera Freshwater is based born?", "25 January 1882", [("freshwater-opera", "based on the 1929 comic play by Virginia Woolf"), ("virginia-woolf", "25 January 1882")]),
(C, "In which town was the band of guitarist Gary Lee Conner formed?", "Ellensburg, Washington", [("gary-lee-conner", "lead guitarist for rock act Screaming Trees"), ("screaming-trees", "formed in Ellensburg, Washington")]),
(C, "Where was the brother of Van Conner born?", "Fort Irwin, California", [("van-conner", "his brother Gary Lee Conner"), ("gary-lee-conner", "Fort Irwin, California")]),
(C, "Where was the bass player of Screaming Trees born?", "Apple Valley, California", [("screaming-trees", "bass player Van Conner"), ("van-conner", "Apple Valley, California")]),
(C, "When did the composer of the opera Hamlet, in which Armand Castelmary created Horatio, die?", "12 February 1896", [("armand-castelmary", "Horatio in Ambroise Thomas"), ("ambroise-thomas", "12 February 1896")]),
(C, "When was the director of A World Apart born?", "15 September 1940", [("a-world-apart-film", "directed by Chris Menges"), ("chris-menges", "born 15 September 1940")]),
(C, "When was the president for whom Robert Suettinger was national intelligence officer born?", "August 19, 1946", [("robert-suettinger", "national intelligence officer for East Asia"), ("bill-clinton", "August 19, 1946")]),
(C, "Which number president was the man Mark D. Fabiani served as special counsel?", "42nd", [("mark-d-fabiani", "special counsel to President Bill Clinton"), ("bill-clinton", "42nd President")]),
(C, "When did the leader behind the Kerensky-Krasnov uprising die?", "11 June 1970", [("kerensky-krasnov-uprising", "attempt by Alexander Kerensky to regain power"), ("alexander-kerensky", "11 June 1970")]),
(C, "When was the photographer who made a photo-book with Lady Gaga in 2011 born?", "August 14, 1965", [("lady-gaga-x-terry-richardson", "American photographer Terry Richardson"), ("terry-richardson", "born August 14, 1965")]),
(C, "When was the Force India driver who came third at the 2014 Bahrain Grand Prix born?", "26 January 1990", [("2014-bahrain-grand-prix", "Sergio Pérez came in third"), ("sergio-p-rez", "born 26 January 1990")]),
(C, "When was the actor who voices Prince Huge in the Adventure Time episode The Hard Easy born?", "October 31, 1945", [("the-hard-easy-adventure-time", "Brian Doyle-Murray as Prince Huge"), ("brian-doyle-murray", "October 31, 1945")]),
(C, "When was Charles Nungesser's flying partner on L'Oiseau Blanc born?", "June 5, 1881", [("l-oiseau-blanc", "flown by French World War I aviation heroes"), ("fran-ois-coli", "June 5, 1881")]),
(C, "When was the anthropologist who trained Alfred Gell born?", "7 November 1910", [("alfred-gell", "He was trained by Edmund Leach"), ("edmund-leach", "7 November 1910")]),
(C, "When did the anthropologist who praised Coral Gardens and Their Magic in 1988 die?", "January 28, 1997", [("coral-gardens-and-their-magic", "In 1988 Alfred Gell called the book"), ("alfred-gell", "January 28, 1997")]),
(C, "When was the singer whose debut studio album is Boots born?", "June 8, 1940", [("boots-album", "1966 debut studio album by Nancy Sinatra"), ("nancy-sinatra", "born June 8, 1940")]),
(C, "Who wrote the song that KMFDM covered on its Boots EP?", "Lee Hazlewood", [("boots-ep", "featuring a cover of the Nancy Sinatra song"), ("these-boots-are-made-for-walkin", "written by Lee Hazlewood")]),
(C, "When was the mother of Esma Sultan, daughter of Sultan Abdulaziz, born?", "8 July 1856", [("esma-sultan-daughter-of-abd-laziz", "his wife Gevheri Kad"), ("gevheri-kad-n", "8 July 1856")]),
(C, "When was the husband of Molly Childers born?", "25 June 1870", [("molly-childers", "Molly married the writer and Irish nationalist"), ("robert-erskine-childers", "25 June 1870")]),
(C, "When was the double first cousin of Robert Barton born?", "25 June 1870", [("robert-barton", "His double first cousin and close friend"), ("robert-erskine-childers", "25 June 1870")]),
(C, "Which influential novel did the double first cousin of Robert Barton write?", "The Riddle of the Sands", [("robert-barton", "His double first cousin and close friend"), ("robert-erskine-childers", "The Riddle of the Sands")]),
(C, "When was the album containing Ellie Goulding's song Army released?", "6 November 2015", [("army-ellie-goulding-song", "from her third studio album"), ("delirium-ellie-goulding-album", "released on 6 November 2015")]),
(C, "Which record label released the album that includes Ellie Goulding's On My Mind?", "Polydor Records", [("on-my-mind-ellie-goulding-song", "from her third studio album"), ("delirium-ellie-goulding-album", "released on 6 November 2015 by Polydor")]),
(C, "When was the album promoted by the Delirium World Tour released?", "6 November 2015", [("delirium-world-tour", "to promote her third studio album"), ("delirium-ellie-goulding-album", "released on 6 November 2015")]),
(C, "When was the Canadian singer-songwriter who released Mild and Hazy born?", "February 12, 1971", [("mild-and-hazy", "7\" vinyl single by Canadian singer-songwriter Hayden"), ("hayden-musician", "born February 12, 1971")]),
(C, "Which town is the singer-songwriter behind Skyscraper National Park from?", "Thornhill, Ontario", [("skyscraper-national-park", "third album by Canadian singer-songwriter Hayden"), ("hayden-musician", "from Thornhill, Ontario")]),
(C, "Which company formed the group whose debut album is 2014 S/S?", "YG Entertainment", [("2014-s-s", "debut album of South Korean group WINNER"), ("winner-band", "formed in 2013 by YG Entertainment")]),
(C, "In which city is the company Sachin Warrier worked for headquartered?", "Mumbai", [("sachin-warrier", "software engineer in Tata Consultancy Services"), ("tata-consultancy-services", "Headquartered in Mumbai")]),
(C, "Where is the retailer that bought Euromarche in 1991 headquartered?", "Boulogne Billancourt", [("euromarch", "rebought by its rival, Carrefour"), ("carrefour", "headquartered in Boulogne Billancourt")]),
(C, "Who created the series in which Rose McGowan played Paige Matthews?", "Constance M. Burge", [("rose-mcgowan", "having played Paige Matthews"), ("charmed", "created by Constance M")]),
(C, "Which airport is named after the composer whom Ferdinando Provesi tutored?", "Parma Airport", [("ferdinando-provesi", "early tutor of Giuseppe Verdi"), ("parma-airport", "named after Giuseppe Verdi")]),
(C, "When was the pilot who flew L'Oiseau Blanc with Francois Coli born?", "15 March 1892", [("l-oiseau-blanc", "flown by French World War I aviation heroes"), ("charles-nungesser", "15 March 1892")]),
(C, "When was the president whose resignation brought Gerald Ford to the presidency born?", "January 9, 1913", [("gerald-ford", "following the resignation of Richard Nixon"), ("richard-nixon", "January 9, 1913")]),
(C, "When was the producer of Nancy Sinatra's album Boots born?", "July 9, 1929", [("boots-album", "produced by Lee Hazlewood"), ("lee-hazlewood", "July 9, 1929")]),
(C, "Which guitarist is the producer of Nancy Sinatra's album Boots best known for working with?", "Duane Eddy", [("boots-album", "produced by Lee Hazlewood"), ("lee-hazlewood", "guitarist Duane Eddy")]),
(C, "When did the war in which Timofey Samsonov was a veteran end?", "October 1922", [("timofey-samsonov", "veteran of the Russian Civil War"), ("russian-civil-war", "November 1917 – October 1922")]),
(C, "When did the war during which the Battle of Romanovka was fought begin?", "November 1917", [("battle-of-romanovka", "during the Russian Civil War"), ("russian-civil-war", "November 1917 – October 1922")]),
(C, "Which team does the running back traded for Marc Parenteau in 2013 play for?", "Calgary Stampeders", [("marc-parenteau", "in exchange for running back Anthony Woodson"), ("anthony-woodson", "Calgary Stampeders")]),
(C, "When was the head coach at whose urging Ken Herock traded Brett Favre born?", "October 14, 1941", [("ken-herock", "at the urging of head coach Jerry Glanville"), ("jerry-glanville", "born October 14, 1941")]),
(C, "When was the manager whose Manchester United records surpass Matt Busby's born?", "31 December 1941", [("matt-busby", "surpassed only by Sir Alex Ferguson"), ("alex-ferguson", "born 31 December 1941")]),
(C, "When was the leader whose Provisional Government the Kornilov Affair purported to strengthen born?", "4 May 1881", [("lavr-kornilov", "purported to strengthen Alexander Kerensky"), ("alexander-kerensky", "4 May 1881")]),
(C, "When did the writer on whom Jane de Gay is an expert die?", "28 March 1941", [("jane-de-gay", "expert on the life and works of Virginia Woolf"), ("virginia-woolf", "25 January 1882")]),
(C, "Who directed the television play named after the author of Moments of Being?", "Stephen Frears", [("moments-of-being", "autobiographical essays by Virginia Woolf"), ("me-i-m-afraid-of-virginia-woolf", "directed by Stephen Frears")]),
(C, "When was the director of the 1974 film 11 Harrowhouse born?", "April 23, 1926", [("11-harrowhouse", "directed by Aram Avakian"), ("aram-avakian", "April 23, 1926")]),
(C, "When was the father of the historian Sergo Mikoyan born?", "25 November 1895", [("sergo-mikoyan", "He was the son of Anastas Mikoyan"), ("anastas-mikoyan", "25 November 1895")]),
(C, "When was the author of The Duchess and the Jeweller born?", "25 January 1882", [("the-duchess-and-the-jeweller", "short story by Virginia Woolf"), ("virginia-woolf", "25 January 1882")]),
# inference: a kinship or role relation composed from two stated ones
(N, "Who was the husband of Molly Childers' older sister?", "Fiske Warren", [("molly-childers", "Her older sister was Gretchen Osgood Warren"), ("gretchen-osgood-warren", "the wife of Fiske Warren")]),
(N, "Who was the husband of Erskine Barton Childers' great aunt?", "Fiske Warren", [("erskine-barton-childers", "His great aunt was Gretchen Osgood Warren"), ("gretchen-osgood-warren", "the wife of Fiske Warren")]),
(N, "Who was the mother-in-law of Robert Barton?", "Gretchen Osgood Warren", [("robert-barton", "His wife was Rachel Warren of Boston, daughter of Fiske Warren"), ("gretchen-osgood-warren", "the wife of Fiske Warren")]),
(N, "Who was the paternal grandfather of Erskine Barton Childers?", "Robert Erskine Childers", [("erskine-barton-childers", "eldest son of Erskine Hamilton Childers"), ("robert-erskine-childers", "father of the fourth President of Ireland")]),
(N, "Who was the paternal grandfather of Esma Sultan, daughter of Abdul Hamid I?", "Ahmed III", [("esma-sultan-daughter-of-abdul-hamid-i", "daughter of Sultan Abdul Hamid I"), ("esma-sultan-daughter-of-ahmed-iii", "half-sister of Sultan Mustafa III and Abdul Hamid I")]),
(N, "Which Ottoman princess was the paternal aunt of Esma Sultan, daughter of Abdul Hamid I?", "Esma Sultan (daughter of Ahmed III)", [("esma-sultan-daughter-of-abdul-hamid-i", "daughter of Sultan Abdul Hamid I"), ("esma-sultan-daughter-of-ahmed-iii", "half-sister of Sultan Mustafa III and Abdul Hamid I")]),
(N, "Who is the father of the singer who recorded These Boots Are Made for Walkin'?", "Frank Sinatra", [("these-boots-are-made-for-walkin", "recorded by Nancy Sinatra"), ("nancy-sinatra", "elder daughter of Frank Sinatra")]),
(N, "Who was the father-in-law of Molly Childers?", "Robert Caesar Childers", [("molly-childers", "Molly married the writer and Irish nationalist"), ("robert-erskine-childers", "son of British Orientalist scholar Robert Caesar Childers")]),
(N, "Which Irish President was the son of Molly Childers' husband?", "Erskine Hamilton Childers", [("molly-childers", "Molly married the writer and Irish nationalist"), ("robert-erskine-childers", "father of the fourth President of Ireland")]),
(N, "Who was the daughter-in-law of Robert Caesar Childers?", "Molly Childers", [("robert-caesar-childers", "He was the father of Irish nationalist Robert Erskine Childers"), ("molly-childers", "Molly married the writer and Irish nationalist")]),
(N, "Who was the father-in-law of Robert Erskine Childers' cousin Robert Barton?", "Fiske Warren", [("robert-erskine-childers", "the cousin of Hugh Childers and Robert Barton"), ("robert-barton", "His wife was Rachel Warren of Boston, daughter of Fiske Warren")]),
]
Q += [
(P, "Who was born first, Scott Derrickson or Chris Menges?", "Chris Menges", [("scott-derrickson", "born July 16, 1966"), ("chris-menges", "born 15 September 1940")]),
(P, "Who is older, Boss Bailey or Champ Bailey?", "Champ Bailey", [("boss-bailey", "born October 14, 1979"), ("champ-bailey", "born June 22, 1978")]),
(P, "Who was born first, Van Conner or Gary Lee Conner?", "Gary Lee Conner", [("van-conner", "Apple Valley, California"), ("gary-lee-conner", "Fort Irwin, California")]),
(P, "Which film was released first, Sinister or Deliver Us from Evil?", "Sinister", [("sinister-film", "2012 supernatural horror film"), ("deliver-us-from-evil-2014-film", "2014 American supernatural horror film")]),
(P, "Which film came out first, CrissCross or Second Best?", "CrissCross", [("crisscross", "1992 American drama film"), ("second-best-film", "1994 British film")]),
(P, "Which film was released earlier, A World Apart or Big Stone Gap?", "A World Apart", [("a-world-apart-film", "1988 anti-Apartheid drama"), ("big-stone-gap-film", "2014 American drama romantic comedy")]),
(P, "Who was born first, Carlo Rovelli or Sergio Ferrara?", "Sergio Ferrara", [("carlo-rovelli", "born 3 May 1956"), ("sergio-ferrara", "born May 2, 1945")]),
(P, "Who was born earlier, Claudio Pellegrini or Sergio Ferrara?", "Claudio Pellegrini", [("claudio-pellegrini", "May 9, 1935"), ("sergio-ferrara", "born May 2, 1945")]),
(P, "Were Aldo Pontremoli and Antonino Lo Surdo both Italian physicists?", "yes", [("aldo-pontremoli", "was an Italian physicist"), ("antonino-lo-surdo", "was an Italian physicist")]),
(P, "Who was born first, Charles Nungesser or Francois Coli?", "Francois Coli", [("charles-nungesser", "15 March 1892"), ("fran-ois-coli", "June 5, 1881")]),
(P, "Which band was formed first, Buck-Tick or Screaming Trees?", "Buck-Tick", [("buck-tick", "formed in Fujioka, Gunma in 1983"), ("screaming-trees", "formed in Ellensburg, Washington in 1985")]),
(P, "Who is older, Tara Strong or Rose McGowan?", "Tara Strong", [("tara-strong", "February 12, 1973"), ("rose-mcgowan", "born September 5, 1973")]),
(P, "Who was born first, Sela Ward or Shirley Temple?", "Shirley Temple", [("sela-ward", "born July 11, 1956"), ("shirley-temple", "April 23, 1928")]),
(P, "Which album was released first, Nancy Sinatra's Boots or Bob Seger's Stranger in Town?", "Boots", [("boots-album", "1966 debut studio album"), ("stranger-in-town-album", "released by Capitol Records in May 1978")]),
(P, "Who was born first, Alex Ferguson or Bill Clinton?", "Alex Ferguson", [("alex-ferguson", "born 31 December 1941"), ("bill-clinton", "August 19, 1946")]),
(P, "Which surfer is older, Andy Irons or Barton Lynch?", "Barton Lynch", [("andy-irons", "July 24, 1978"), ("barton-lynch", "born August 9, 1963")]),
(P, "Who is older, Coco Ho or Andy Irons?", "Andy Irons", [("coco-ho", "born April 28, 1991"), ("andy-irons", "July 24, 1978")]),
(P, "Which boxer was born first, Zab Judah or Vince Phillips?", "Vince Phillips", [("zab-judah", "born October 27, 1977"), ("vince-phillips", "born July 23, 1963")]),
(P, "Who was born first, Bunny Grant or Andrew Murray the Guyanese boxer?", "Bunny Grant", [("bunny-grant", "born 29 September 1940"), ("andrew-murray-guyanese-boxer", "1 July 1971")]),
(P, "Which film was released first, Alien or Total Recall?", "Alien", [("alien-film", "1979 science-fiction horror film"), ("total-recall-1990-film", "1990 American science-fiction action film")]),
(P, "Which film came out first, True Lies or Total Recall?", "Total Recall", [("true-lies", "1994 American action film"), ("total-recall-1990-film", "1990 American science-fiction action film")]),
(P, "Which film was released first, The Family Man or City of Angels?", "City of Angels", [("the-family-man", "2000 American romantic comedy-drama film"), ("city-of-angels-film", "1998 American romantic fantasy film")]),
(P, "Which was released first, the Apple Remote or Apple Remote Desktop?", "Apple Remote Desktop", [("apple-remote", "released in or after October 2005"), ("apple-remote-desktop", "first released on March 14, 2002")]),
(P, "Were Virginia Woolf and Roald Dahl both novelists?", "yes", [("virginia-woolf", "25 January 1882"), ("roald-dahl", "British novelist, short story writer")]),
(P, "Who died first, Virginia Woolf or Roald Dahl?", "Virginia Woolf", [("virginia-woolf", "28 March 1941"), ("roald-dahl", "23 November 1990")]),
(P, "Who was born first, Terry Richardson or Amanda Lepore?", "Terry Richardson", [("terry-richardson", "born August 14, 1965"), ("amanda-lepore", "born November 21, 1967")]),
(P, "Who is older, Annie Morton or Terry Richardson?", "Terry Richardson", [("annie-morton", "born October 8, 1970"), ("terry-richardson", "born August 14, 1965")]),
(P, "Which race car driver was born first, Tony Ave or Catharina Felser?", "Tony Ave", [("tony-ave", "born November 10, 1968"), ("catharina-felser", "born October 2, 1982")]),
(P, "Who was born first, Edmund Leach or Alfred Gell?", "Edmund Leach", [("edmund-leach", "7 November 1910"), ("alfred-gell", "June 12, 1945")]),
(P, "Who was born first, Alexander Kerensky or Lavr Kornilov?", "Lavr Kornilov", [("alexander-kerensky", "4 May 1881"), ("lavr-kornilov", "18 August 1870")]),
(P, "Who was born first, Ambroise Thomas or Giuseppe Verdi?", "Ambroise Thomas", [("ambroise-thomas", "5 August 1811"), ("giuseppe-verdi", "9 or 10 October 1813")]),
(P, "Who was born first, Cesira Ferrani or Armand Castelmary?", "Armand Castelmary", [("cesira-ferrani", "May 8, 1863 in Turin"), ("armand-castelmary", "born Toulouse 16 August 1834")]),
(P, "Which novel was published first, Spirit of the Border or Three Comrades?", "Spirit of the Border", [("spirit-of-the-border", "first published in 1906"), ("three-comrades-novel", "first published in 1936")]),
(P, "Who was born first, Thomas Hylland Eriksen or Alfred Gell?", "Alfred Gell", [("thomas-hylland-eriksen", "born February 6, 1962"), ("alfred-gell", "June 12, 1945")]),
(P, "Who is older, Steven Adler or Tyler Bates?", "Steven Adler", [("steven-adler", "January 22, 1965"), ("tyler-bates", "born June 5, 1965")]),
(P, "Who was born first, Brad Parscale or Tony Fabrizio?", "Tony Fabrizio", [("brad-parscale", "born January 3, 1976"), ("tony-fabrizio", "born 1960")]),
(P, "Which film was released first, Tosca (1956) or Verdi, the King of Melody?", "Verdi, the King of Melody", [("tosca-1956-film", "1956 Italian musical film"), ("verdi-the-king-of-melody", "1953 Italian biographical film")]),
(P, "Who was born first, Yvonne Ridley or William Connolley?", "Yvonne Ridley", [("yvonne-ridley", "born 23 April 1958"), ("william-connolley", "born 12 April 1964")]),
(P, "Who was born first, Gerald Ford or Richard Nixon?", "Richard Nixon", [("gerald-ford", "July 14, 1913"), ("richard-nixon", "January 9, 1913")]),
(P, "Who is older, Sarah Drew or Ayana Walker?", "Ayana Walker", [("sarah-drew", "born October 1, 1980"), ("ayana-walker", "born September 10, 1979")]),
(P, "Which adventure was published first, Arena of Khazan or Crusaders of Khazan?", "Arena of Khazan", [("arena-of-khazan", "1979 role-playing game adventure"), ("tunnels-amp-trolls-crusaders-of-khazan", "in 1990 for the PC")]),
(P, "Which film is older, The Tragedy of Romeo and Juliet or Romeo + Juliet?", "The Tragedy of Romeo and Juliet", [("the-tragedy-of-romeo-and-juliet-film", "1982 film adaptation"), ("romeo-juliet", "1996 American romantic drama film")]),
(P, "Who was born first, Kerr Smith or Rose McGowan?", "Kerr Smith", [("kerr-smith", "born March 9, 1972"), ("rose-mcgowan", "born September 5, 1973")]),
(P, "Are Chris Menges and Scott Derrickson both film directors?", "yes", [("chris-menges", "cinematographer and film director"), ("scott-derrickson", "American director, screenwriter and producer")]),
(P, "Were Robert Barton and Robert Erskine Childers born in the same decade?", "no", [("robert-barton", "4 March 1881"), ("robert-erskine-childers", "25 June 1870")]),
(P, "Which was established first, Columbia University or the British Journal?", "British Journal", [("columbia-university", "established in 1754"), ("british-journal", "published from 22 September 1722")]),
(P, "Who was born first, Jerry Glanville or Ken Herock?", "Ken Herock", [("jerry-glanville", "born October 14, 1941"), ("ken-herock", "born July 16, 1941")]),
(P, "Who was born first, Sergio Perez or Sachin Bansal?", "Sachin Bansal", [("sergio-p-rez", "born 26 January 1990"), ("sachin-bansal", "born 5 August 1981")]),
(P, "Who was born first, Bob Seger or Nancy Sinatra?", "Nancy Sinatra", [("bob-seger", "born May 6, 1945"), ("nancy-sinatra", "born June 8, 1940")]),
(P, "Who was born first, Atsushi Sakurai or Badly Drawn Boy?", "Atsushi Sakurai", [("atsushi-sakurai", "born March 7, 1966"), ("badly-drawn-boy", "born 2 October 1969")]),
(P, "Who died first, Aldo Pontremoli or Antonino Lo Surdo?", "Aldo Pontremoli", [("aldo-pontremoli", "19 January 1896"), ("antonino-lo-surdo", "7 June 1949")]),
(P, "Who was born first, Andrae Crouch or Charles Charamba?", "Andrae Crouch", [("andra-crouch", "July 1, 1942"), ("charles-charamba", "born 27 April 1971")]),
(P, "Which album was released first, The Hour of Bewilderbeast or About a Boy?", "The Hour of Bewilderbeast", [("the-hour-of-bewilderbeast", "released on 26 June 2000"), ("about-a-boy-soundtrack", "released in 2002")]),
(P, "Which Ellie Goulding album came out first, Halcyon or Delirium?", "Halcyon", [("halcyon-album", "released on 5 October 2012"), ("delirium-ellie-goulding-album", "released on 6 November 2015")]),
]
def sentences(doc: str) -> list[str]:
    """A paragraph's sentences (its title line left out), split as the gold substrings were checked against."""
    body = (DOCS / f"{doc}.txt").read_text(encoding="utf-8").partition("\n\n")[2]
    return [s.strip() for s in re.split(r'(?<=[.!?])\s+(?=[A-Z"\u201c(])', body.strip()) if s.strip()]


def build() -> list[dict]:
    """Every question with its gold sentences (each substring found in exactly one sentence, two documents at
    least); exits naming the first substring that is not."""
    out = []
    for kind, question, answer, gold in Q:
        golds = []
        for doc, sub in gold:
            hits = [s for s in sentences(doc) if sub in s]
            if len(hits) != 1:
                raise SystemExit(f"{doc}: {sub!r} is in {len(hits)} sentences, not one ({question})")
            golds.append({"document": f"{doc}.txt", "sentence": hits[0]})
        if len({g["document"] for g in golds}) < 2:
            raise SystemExit(f"{question}: its gold lies in one document")
        out.append({"question": question, "answer": answer, "type": kind, "gold": golds})
    return out


def assign(out: list[dict]) -> None:
    """The split (see the module's docstring), drawn with a fixed seed."""
    split = json.loads((ROOT / "bench" / "data" / "hotpotqa_split.json").read_text())
    lines = (DOCS.parent / "hotpotqa_dev.jsonl").read_text().splitlines()
    gold_docs = {part: {g["document"][:-4] for i in split[part] for g in json.loads(lines[i])["gold"]}
                 for part in ("dev", "held_out")}
    random.Random(6302).shuffle(out)
    for item in out:
        docs = {g["document"][:-4] for g in item["gold"]}
        item["split"] = "held_out" if docs & gold_docs["held_out"] else ("dev" if docs & gold_docs["dev"] else "")
    need_dev = len(out) // 2 - sum(item["split"] == "dev" for item in out)
    for n, item in enumerate(i for i in out if not i["split"]):
        item["split"] = "dev" if n < need_dev else "held_out"


if __name__ == "__main__":
    questions = build()
    assign(questions)
    print(len(questions), "questions;", sum(q["split"] == "dev" for q in questions), "dev;",
          {k: sum(q["type"] == k for q in questions) for k in (C, N, P)})
    if "--write" in sys.argv:
        (ROOT / "bench" / "data" / "twohop_qa.jsonl").write_text(
            "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
