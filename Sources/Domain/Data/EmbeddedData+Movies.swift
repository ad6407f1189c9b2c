extension EmbeddedData {
    /// The film catalogue `MovieSearchViewModel` searches: real films with their IMDb id, year and director;
    /// the poster is the server's own placeholder image (its colour derived from the id).
    package static let movies: [Movie] = catalogue.split(separator: "\n").map { line in
        let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        precondition(fields.count == 4 && fields[0].hasPrefix("tt"), "bad catalogue line: \(line)")
        let (id, title, year, director) = (fields[0], fields[1], fields[2], fields[3])
        return Movie(
            id: id,
            image: placeholderPath(size: 300, id: Int(id.dropFirst(2)) ?? 0),
            title: title,
            description: "\(year) · \(director)"
        )
    }

    /// `imdb id|title|year|director`, one film a line.
    private static let catalogue = """
        tt0111161|The Shawshank Redemption|1994|Frank Darabont
        tt0068646|The Godfather|1972|Francis Ford Coppola
        tt0071562|The Godfather Part II|1974|Francis Ford Coppola
        tt0099674|The Godfather Part III|1990|Francis Ford Coppola
        tt0468569|The Dark Knight|2008|Christopher Nolan
        tt0050083|12 Angry Men|1957|Sidney Lumet
        tt0108052|Schindler's List|1993|Steven Spielberg
        tt0120737|The Lord of the Rings: The Fellowship of the Ring|2001|Peter Jackson
        tt0167261|The Lord of the Rings: The Two Towers|2002|Peter Jackson
        tt0167260|The Lord of the Rings: The Return of the King|2003|Peter Jackson
        tt0110912|Pulp Fiction|1994|Quentin Tarantino
        tt0060196|The Good, the Bad and the Ugly|1966|Sergio Leone
        tt0109830|Forrest Gump|1994|Robert Zemeckis
        tt0137523|Fight Club|1999|David Fincher
        tt1375666|Inception|2010|Christopher Nolan
        tt0080684|The Empire Strikes Back|1980|Irvin Kershner
        tt0076759|Star Wars|1977|George Lucas
        tt0086190|Return of the Jedi|1983|Richard Marquand
        tt0133093|The Matrix|1999|Lana Wachowski, Lilly Wachowski
        tt0099685|Goodfellas|1990|Martin Scorsese
        tt0073486|One Flew Over the Cuckoo's Nest|1975|Miloš Forman
        tt0114369|Se7en|1995|David Fincher
        tt0038650|It's a Wonderful Life|1946|Frank Capra
        tt0047478|Seven Samurai|1954|Akira Kurosawa
        tt0102926|The Silence of the Lambs|1991|Jonathan Demme
        tt0120815|Saving Private Ryan|1998|Steven Spielberg
        tt0317248|City of God|2002|Fernando Meirelles
        tt0118799|Life Is Beautiful|1997|Roberto Benigni
        tt0120689|The Green Mile|1999|Frank Darabont
        tt0816692|Interstellar|2014|Christopher Nolan
        tt0103064|Terminator 2: Judgment Day|1991|James Cameron
        tt0088247|The Terminator|1984|James Cameron
        tt0088763|Back to the Future|1985|Robert Zemeckis
        tt0245429|Spirited Away|2001|Hayao Miyazaki
        tt0253474|The Pianist|2002|Roman Polanski
        tt0054215|Psycho|1960|Alfred Hitchcock
        tt0172495|Gladiator|2000|Ridley Scott
        tt0110413|Léon: The Professional|1994|Luc Besson
        tt0110357|The Lion King|1994|Roger Allers, Rob Minkoff
        tt0407887|The Departed|2006|Martin Scorsese
        tt0120586|American History X|1998|Tony Kaye
        tt0482571|The Prestige|2006|Christopher Nolan
        tt0114814|The Usual Suspects|1995|Bryan Singer
        tt0034583|Casablanca|1942|Michael Curtiz
        tt0095327|Grave of the Fireflies|1988|Isao Takahata
        tt0056058|Harakiri|1962|Masaki Kobayashi
        tt1675434|The Intouchables|2011|Olivier Nakache, Éric Toledano
        tt0027977|Modern Times|1936|Charles Chaplin
        tt0064116|Once Upon a Time in the West|1968|Sergio Leone
        tt0021749|City Lights|1931|Charles Chaplin
        tt0095765|Cinema Paradiso|1988|Giuseppe Tornatore
        tt0047396|Rear Window|1954|Alfred Hitchcock
        tt0078748|Alien|1979|Ridley Scott
        tt0090605|Aliens|1986|James Cameron
        tt0078788|Apocalypse Now|1979|Francis Ford Coppola
        tt0209144|Memento|2000|Christopher Nolan
        tt0082971|Raiders of the Lost Ark|1981|Steven Spielberg
        tt0097576|Indiana Jones and the Last Crusade|1989|Steven Spielberg
        tt1853728|Django Unchained|2012|Quentin Tarantino
        tt0032553|The Great Dictator|1940|Charles Chaplin
        tt0405094|The Lives of Others|2006|Florian Henckel von Donnersmarck
        tt0043014|Sunset Boulevard|1950|Billy Wilder
        tt0050825|Paths of Glory|1957|Stanley Kubrick
        tt0081505|The Shining|1980|Stanley Kubrick
        tt0910970|WALL·E|2008|Andrew Stanton
        tt0051201|Witness for the Prosecution|1957|Billy Wilder
        tt4154756|Avengers: Infinity War|2018|Anthony Russo, Joe Russo
        tt4154796|Avengers: Endgame|2019|Anthony Russo, Joe Russo
        tt0848228|The Avengers|2012|Joss Whedon
        tt1345836|The Dark Knight Rises|2012|Christopher Nolan
        tt0372784|Batman Begins|2005|Christopher Nolan
        tt0057012|Dr. Strangelove|1964|Stanley Kubrick
        tt0364569|Oldboy|2003|Park Chan-wook
        tt0169547|American Beauty|1999|Sam Mendes
        tt0087843|Once Upon a Time in America|1984|Sergio Leone
        tt0112573|Braveheart|1995|Mel Gibson
        tt0082096|Das Boot|1981|Wolfgang Petersen
        tt0114709|Toy Story|1995|John Lasseter
        tt0120363|Toy Story 2|1999|John Lasseter
        tt0435761|Toy Story 3|2010|Lee Unkrich
        tt0119698|Princess Mononoke|1997|Hayao Miyazaki
        tt0096283|My Neighbor Totoro|1988|Hayao Miyazaki
        tt0105236|Reservoir Dogs|1992|Quentin Tarantino
        tt0361748|Inglourious Basterds|2009|Quentin Tarantino
        tt0266697|Kill Bill: Vol. 1|2003|Quentin Tarantino
        tt0045152|Singin' in the Rain|1952|Stanley Donen, Gene Kelly
        tt0062622|2001: A Space Odyssey|1968|Stanley Kubrick
        tt0086879|Amadeus|1984|Miloš Forman
        tt0053125|North by Northwest|1959|Alfred Hitchcock
        tt0052357|Vertigo|1958|Alfred Hitchcock
        tt0033467|Citizen Kane|1941|Orson Welles
        tt0022100|M|1931|Fritz Lang
        tt0017136|Metropolis|1927|Fritz Lang
        tt0044741|Ikiru|1952|Akira Kurosawa
        tt0042876|Rashomon|1950|Akira Kurosawa
        tt0055630|Yojimbo|1961|Akira Kurosawa
        tt0089881|Ran|1985|Akira Kurosawa
        tt0211915|Amélie|2001|Jean-Pierre Jeunet
        tt0066921|A Clockwork Orange|1971|Stanley Kubrick
        tt0093058|Full Metal Jacket|1987|Stanley Kubrick
        tt0075314|Taxi Driver|1976|Martin Scorsese
        tt0081398|Raging Bull|1980|Martin Scorsese
        tt0112641|Casino|1995|Martin Scorsese
        tt0993846|The Wolf of Wall Street|2013|Martin Scorsese
        tt1130884|Shutter Island|2010|Martin Scorsese
        tt0040522|Bicycle Thieves|1948|Vittorio De Sica
        tt0180093|Requiem for a Dream|2000|Darren Aronofsky
        tt0947798|Black Swan|2010|Darren Aronofsky
        tt0338013|Eternal Sunshine of the Spotless Mind|2004|Michel Gondry
        tt0056172|Lawrence of Arabia|1962|David Lean
        tt0050212|The Bridge on the River Kwai|1957|David Lean
        tt0070735|The Sting|1973|George Roy Hill
        tt0064115|Butch Cassidy and the Sundance Kid|1969|George Roy Hill
        tt0208092|Snatch|2000|Guy Ritchie
        tt0119488|L.A. Confidential|1997|Curtis Hanson
        tt0053604|The Apartment|1960|Billy Wilder
        tt0053291|Some Like It Hot|1959|Billy Wilder
        tt0036775|Double Indemnity|1944|Billy Wilder
        tt0012349|The Kid|1921|Charles Chaplin
        tt0015864|The Gold Rush|1925|Charles Chaplin
        tt0071853|Monty Python and the Holy Grail|1975|Terry Gilliam, Terry Jones
        tt0079470|Life of Brian|1979|Terry Jones
        tt0086250|Scarface|1983|Brian De Palma
        tt1049413|Up|2009|Pete Docter
        tt2096673|Inside Out|2015|Pete Docter
        tt0198781|Monsters, Inc.|2001|Pete Docter
        tt0266543|Finding Nemo|2003|Andrew Stanton
        tt0317705|The Incredibles|2004|Brad Bird
        tt0382932|Ratatouille|2007|Brad Bird
        tt2380307|Coco|2017|Lee Unkrich
        tt0042192|All About Eve|1950|Joseph L. Mankiewicz
        tt0040897|The Treasure of the Sierra Madre|1948|John Huston
        tt0033870|The Maltese Falcon|1941|John Huston
        tt0057115|The Great Escape|1963|John Sturges
        tt0095016|Die Hard|1988|John McTiernan
        tt0363163|Downfall|2004|Oliver Hirschbiegel
        tt0105695|Unforgiven|1992|Clint Eastwood
        tt1205489|Gran Torino|2008|Clint Eastwood
        tt0113277|Heat|1995|Michael Mann
        tt0118849|Children of Heaven|1997|Majid Majidi
        tt0268978|A Beautiful Mind|2001|Ron Howard
        tt0112384|Apollo 13|1995|Ron Howard
        tt0046912|Dial M for Murder|1954|Alfred Hitchcock
        tt0032976|Rebecca|1940|Alfred Hitchcock
        tt0038787|Notorious|1946|Alfred Hitchcock
        tt0091251|Come and See|1985|Elem Klimov
        tt0117951|Trainspotting|1996|Danny Boyle
        tt0047296|On the Waterfront|1954|Elia Kazan
        tt0434409|V for Vendetta|2005|James McTeigue
        tt0061512|Cool Hand Luke|1967|Stuart Rosenberg
        tt0264464|Catch Me If You Can|2002|Steven Spielberg
        tt0107290|Jurassic Park|1993|Steven Spielberg
        tt0073195|Jaws|1975|Steven Spielberg
        tt0083866|E.T. the Extra-Terrestrial|1982|Steven Spielberg
        tt0084787|The Thing|1982|John Carpenter
        tt0077651|Halloween|1978|John Carpenter
        tt0119217|Good Will Hunting|1997|Gus Van Sant
        tt0050986|Wild Strawberries|1957|Ingmar Bergman
        tt0050976|The Seventh Seal|1957|Ingmar Bergman
        tt0031381|Gone with the Wind|1939|Victor Fleming
        tt0032138|The Wizard of Oz|1939|Victor Fleming
        tt0077416|The Deer Hunter|1978|Michael Cimino
        tt0083658|Blade Runner|1982|Ridley Scott
        tt1856101|Blade Runner 2049|2017|Denis Villeneuve
        tt2543164|Arrival|2016|Denis Villeneuve
        tt1392214|Prisoners|2013|Denis Villeneuve
        tt1255953|Incendies|2010|Denis Villeneuve
        tt1160419|Dune|2021|Denis Villeneuve
        tt15239678|Dune: Part Two|2024|Denis Villeneuve
        tt0046268|The Wages of Fear|1953|Henri-Georges Clouzot
        tt0071315|Chinatown|1974|Roman Polanski
        tt0075148|Rocky|1976|John G. Avildsen
        tt0079944|Stalker|1979|Andrei Tarkovsky
        tt0080678|The Elephant Man|1980|David Lynch
        tt0093779|The Princess Bride|1987|Rob Reiner
        tt0092005|Stand by Me|1986|Rob Reiner
        tt0097165|Dead Poets Society|1989|Peter Weir
        tt0120382|The Truman Show|1998|Peter Weir
        tt0107207|In the Name of the Father|1993|Jim Sheridan
        tt0116282|Fargo|1996|Joel Coen, Ethan Coen
        tt0118715|The Big Lebowski|1998|Joel Coen, Ethan Coen
        tt0477348|No Country for Old Men|2007|Joel Coen, Ethan Coen
        tt0457430|Pan's Labyrinth|2006|Guillermo del Toro
        tt5580390|The Shape of Water|2017|Guillermo del Toro
        tt0469494|There Will Be Blood|2007|Paul Thomas Anderson
        tt0758758|Into the Wild|2007|Sean Penn
        tt0986264|Like Stars on Earth|2007|Aamir Khan
        tt1187043|3 Idiots|2009|Rajkumar Hirani
        tt1201607|Harry Potter and the Deathly Hallows: Part 2|2011|David Yates
        tt0241527|Harry Potter and the Sorcerer's Stone|2001|Chris Columbus
        tt1291584|Warrior|2011|Gavin O'Connor
        tt1305806|The Secret in Their Eyes|2009|Juan José Campanella
        tt1392190|Mad Max: Fury Road|2015|George Miller
        tt2024544|12 Years a Slave|2013|Steve McQueen
        tt2278388|The Grand Budapest Hotel|2014|Wes Anderson
        tt2582802|Whiplash|2014|Damien Chazelle
        tt3783958|La La Land|2016|Damien Chazelle
        tt1895587|Spotlight|2015|Tom McCarthy
        tt3011894|Wild Tales|2014|Damián Szifron
        tt3315342|Logan|2017|James Mangold
        tt1950186|Ford v Ferrari|2019|James Mangold
        tt4633694|Spider-Man: Into the Spider-Verse|2018|Bob Persichetti, Peter Ramsey, Rodney Rothman
        tt5027774|Three Billboards Outside Ebbing, Missouri|2017|Martin McDonagh
        tt6751668|Parasite|2019|Bong Joon Ho
        tt7286456|Joker|2019|Todd Phillips
        tt8579674|1917|2019|Sam Mendes
        tt1745960|Top Gun: Maverick|2022|Joseph Kosinski
        tt15398776|Oppenheimer|2023|Christopher Nolan
        tt0075686|Annie Hall|1977|Woody Allen
        tt0091763|Platoon|1986|Oliver Stone
        tt0095953|Rain Man|1988|Barry Levinson
        tt0099348|Dances with Wolves|1990|Kevin Costner
        tt0101414|Beauty and the Beast|1991|Gary Trousdale, Kirk Wise
        tt0103639|Aladdin|1992|Ron Clements, John Musker
        tt0107048|Groundhog Day|1993|Harold Ramis
        tt0114746|Twelve Monkeys|1995|Terry Gilliam
        tt0120338|Titanic|1997|James Cameron
        tt0499549|Avatar|2009|James Cameron
        tt0167404|The Sixth Sense|1999|M. Night Shyamalan
        tt0181689|Minority Report|2002|Steven Spielberg
        tt0190332|Crouching Tiger, Hidden Dragon|2000|Ang Lee
        tt0454876|Life of Pi|2012|Ang Lee
        tt0246578|Donnie Darko|2001|Richard Kelly
        tt0325710|The Last Samurai|2003|Edward Zwick
        tt0371746|Iron Man|2008|Jon Favreau
        tt0258463|The Bourne Identity|2002|Doug Liman
        tt0440963|The Bourne Ultimatum|2007|Paul Greengrass
        tt0381061|Casino Royale|2006|Martin Campbell
        tt0058150|Goldfinger|1964|Guy Hamilton
        tt2488496|Star Wars: The Force Awakens|2015|J. J. Abrams
        tt0416449|300|2006|Zack Snyder
        tt1504320|The King's Speech|2010|Tom Hooper
        tt1285016|The Social Network|2010|David Fincher
        tt1024648|Argo|2012|Ben Affleck
        tt1454468|Gravity|2013|Alfonso Cuarón
        tt1663202|The Revenant|2015|Alejandro G. Iñárritu
        tt2562232|Birdman|2014|Alejandro G. Iñárritu
        tt4975722|Moonlight|2016|Barry Jenkins
        tt6966692|Green Book|2018|Peter Farrelly
        tt1798709|Her|2013|Spike Jonze
        tt0470752|Ex Machina|2014|Alex Garland
        tt5052448|Get Out|2017|Jordan Peele
        tt7131622|Once Upon a Time in Hollywood|2019|Quentin Tarantino
        tt6710474|Everything Everywhere All at Once|2022|Daniel Kwan, Daniel Scheinert
        tt1517268|Barbie|2023|Greta Gerwig
        tt0096895|Batman|1989|Tim Burton
        tt0070047|The Exorcist|1973|William Friedkin
        tt0061722|The Graduate|1967|Mike Nichols
        tt0058461|A Fistful of Dollars|1964|Sergio Leone
        tt0059742|The Sound of Music|1965|Robert Wise
        tt0056592|To Kill a Mockingbird|1962|Robert Mulligan
        tt0052618|Ben-Hur|1959|William Wyler
        tt0036868|The Best Years of Our Lives|1946|William Wyler
        tt0048473|Pather Panchali|1955|Satyajit Ray
        tt0046438|Tokyo Story|1953|Yasujirō Ozu
        tt0041959|The Third Man|1949|Carol Reed
        tt0032551|The Grapes of Wrath|1940|John Ford
        tt0031679|Mr. Smith Goes to Washington|1939|Frank Capra
        tt0025316|It Happened One Night|1934|Frank Capra
        tt0019254|The Passion of Joan of Arc|1928|Carl Theodor Dreyer
        tt0018455|Sunrise|1927|F. W. Murnau
        tt0013442|Nosferatu|1922|F. W. Murnau
        tt0017925|The General|1926|Clyde Bruckman, Buster Keaton
        tt0010323|The Cabinet of Dr. Caligari|1920|Robert Wiene
        tt0029583|Snow White and the Seven Dwarfs|1937|David Hand
        tt4846340|Hidden Figures|2016|Theodore Melfi
        tt8946378|Knives Out|2019|Rian Johnson
        tt3659388|The Martian|2015|Ridley Scott
        tt0780504|Drive|2011|Nicolas Winding Refn
        tt3281548|Little Women|2019|Greta Gerwig
        tt4925292|Lady Bird|2017|Greta Gerwig
        tt2584384|Jojo Rabbit|2019|Taika Waititi
        tt6155172|Roma|2018|Alfonso Cuarón
        tt0206634|Children of Men|2006|Alfonso Cuarón
        tt0443706|Zodiac|2007|David Fincher
        tt2267998|Gone Girl|2014|David Fincher
        tt1302006|The Irishman|2019|Martin Scorsese
        tt6723592|Tenet|2020|Christopher Nolan
        tt5013056|Dunkirk|2017|Christopher Nolan
        tt9770150|Nomadland|2020|Chloé Zhao
        tt8613070|Portrait of a Lady on Fire|2019|Céline Sciamma
        tt14039582|Drive My Car|2021|Ryusuke Hamaguchi
        tt13238346|Past Lives|2023|Celine Song
        tt17009710|Anatomy of a Fall|2023|Justine Triet
        tt7160372|The Zone of Interest|2023|Jonathan Glazer
        """
}
