/**
 * Passwords that appear at the top of every breach corpus, lower-cased: common words and names, keyboard
 * walks, digit runs and years, and the common words with the suffixes people add (1, 123, !, a year).
 * Compiled for this service from the well-known top lists; checked offline (no network at sign-up).
 * `isCommonPassword` also strips a trailing run of digits and symbols and undoes simple l33t spelling, so
 * "Dragon1987!" and "p@ssw0rd" are caught by "dragon" and "password".
 */
const LIST = `
0000 00000 000000 0000000 00000000 000000000 0000000000 00000000000 000000000000 007 0987654321 100200 1111
11111 111111 1111111 11111111 111111111 1111111111 11111111111 111111111111 112233 11223344 121212 123123
123321 1234 12341234 12345 123456 1234567 12345678 123456789 1234567890 12345678901 123456789012 123abc 123qwe
131313 147258 147258369 159357 159753 1950 1951 1952 1953 1954 1955 1956 1957 1958 1959 1960 1961 1962 1963
1964 1965 1966 1967 1968 1969 1970 1971 1972 1973 1974 1975 1976 1977 1978 1979 1980 1981 1982 1983 1984 1985
1986 1987 1988 1989 1990 1991 1992 1993 1994 1995 1996 1997 1998 1999 1q2w3e 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y
1qaz2wsx 1qazxsw2 2000 2001 2002 2003 2004 2005 2006 2007 2008 2009 2010 2011 2012 2013 2014 2015 2016 2017
2018 2019 2020 2021 2022 2023 2024 2025 2026 2027 2028 2029 2030 2222 22222 222222 2222222 22222222 222222222
2222222222 22222222222 222222222222 3333 33333 333333 3333333 33333333 333333333 3333333333 33333333333
333333333333 4444 44444 444444 4444444 44444444 444444444 4444444444 44444444444 444444444444 5201314 520520
5555 55555 555555 5555555 55555555 555555555 5555555555 55555555555 555555555555 654321 6666 66666 666666
6666666 66666666 666666666 6666666666 66666666666 666666666666 696969 741852963 7777 77777 777777 7777777
77777777 777777777 7777777777 77777777777 777777777777 789456 789456123 8888 88888 888888 8888888 88888888
888888888 8888888888 88888888888 888888888888 9876 98765 987654 9876543 98765432 987654321 9876543210
98765432109 987654321098 9999 99999 999999 9999999 99999999 999999999 9999999999 99999999999 999999999999
a1b2c3 aaaaaa aaaaaa! aaaaaa#1 aaaaaa007 aaaaaa01 aaaaaa1 aaaaaa12 aaaaaa123 aaaaaa1234 aaaaaa12345 aaaaaa2020
aaaaaa2021 aaaaaa2022 aaaaaa2023 aaaaaa2024 aaaaaa2025 aaaaaa69 aaaaaa@123 abc abc! abc#1 abc007 abc01 abc1
abc12 abc123 abc1234 abc12345 abc2020 abc2021 abc2022 abc2023 abc2024 abc2025 abc69 abc@123 abcd abcd! abcd#1
abcd007 abcd01 abcd1 abcd12 abcd123 abcd1234 abcd12345 abcd2020 abcd2021 abcd2022 abcd2023 abcd2024 abcd2025
abcd69 abcd@123 abcde abcde! abcde#1 abcde007 abcde01 abcde1 abcde12 abcde123 abcde1234 abcde12345 abcde2020
abcde2021 abcde2022 abcde2023 abcde2024 abcde2025 abcde69 abcde@123 abcdef abcdef! abcdef#1 abcdef007 abcdef01
abcdef1 abcdef12 abcdef123 abcdef1234 abcdef12345 abcdef2020 abcdef2021 abcdef2022 abcdef2023 abcdef2024
abcdef2025 abcdef69 abcdef@123 abcdefg abcdefg! abcdefg#1 abcdefg007 abcdefg01 abcdefg1 abcdefg12 abcdefg123
abcdefg1234 abcdefg12345 abcdefg2020 abcdefg2021 abcdefg2022 abcdefg2023 abcdefg2024 abcdefg2025 abcdefg69
abcdefg@123 abcdefgh abcdefgh! abcdefgh#1 abcdefgh007 abcdefgh01 abcdefgh1 abcdefgh12 abcdefgh123 abcdefgh1234
abcdefgh12345 abcdefgh2020 abcdefgh2021 abcdefgh2022 abcdefgh2023 abcdefgh2024 abcdefgh2025 abcdefgh69
abcdefgh@123 access access! access#1 access007 access01 access1 access12 access123 access1234 access12345
access2020 access2021 access2022 access2023 access2024 access2025 access69 access@123 admin admin! admin#1
admin007 admin01 admin1 admin12 admin123 admin1234 admin12345 admin2020 admin2021 admin2022 admin2023
admin2024 admin2025 admin69 admin@123 administrator administrator! administrator#1 administrator007
administrator01 administrator1 administrator12 administrator123 administrator1234 administrator12345
administrator2020 administrator2021 administrator2022 administrator2023 administrator2024 administrator2025
administrator69 administrator@123 amanda amanda! amanda#1 amanda007 amanda01 amanda1 amanda12 amanda123
amanda1234 amanda12345 amanda2020 amanda2021 amanda2022 amanda2023 amanda2024 amanda2025 amanda69 amanda@123
america america! america#1 america007 america01 america1 america12 america123 america1234 america12345
america2020 america2021 america2022 america2023 america2024 america2025 america69 america@123 andrew andrew!
andrew#1 andrew007 andrew01 andrew1 andrew12 andrew123 andrew1234 andrew12345 andrew2020 andrew2021 andrew2022
andrew2023 andrew2024 andrew2025 andrew69 andrew@123 angel angel! angel#1 angel007 angel01 angel1 angel12
angel123 angel1234 angel12345 angel2020 angel2021 angel2022 angel2023 angel2024 angel2025 angel69 angel@123
angels angels! angels#1 angels007 angels01 angels1 angels12 angels123 angels1234 angels12345 angels2020
angels2021 angels2022 angels2023 angels2024 angels2025 angels69 angels@123 anthony anthony! anthony#1
anthony007 anthony01 anthony1 anthony12 anthony123 anthony1234 anthony12345 anthony2020 anthony2021
anthony2022 anthony2023 anthony2024 anthony2025 anthony69 anthony@123 anything anything! anything#1
anything007 anything01 anything1 anything12 anything123 anything1234 anything12345 anything2020 anything2021
anything2022 anything2023 anything2024 anything2025 anything69 anything@123 apple apple! apple#1 apple007
apple01 apple1 apple12 apple123 apple1234 apple12345 apple2020 apple2021 apple2022 apple2023 apple2024
apple2025 apple69 apple@123 april april! april#1 april007 april01 april1 april12 april123 april1234 april12345
april2020 april2021 april2022 april2023 april2024 april2025 april69 april@123 arsenal arsenal! arsenal#1
arsenal007 arsenal01 arsenal1 arsenal12 arsenal123 arsenal1234 arsenal12345 arsenal2020 arsenal2021
arsenal2022 arsenal2023 arsenal2024 arsenal2025 arsenal69 arsenal@123 asd123 asdf asdf! asdf#1 asdf007 asdf01
asdf1 asdf12 asdf123 asdf1234 asdf12345 asdf2020 asdf2021 asdf2022 asdf2023 asdf2024 asdf2025 asdf69 asdf@123
asdfg asdfg! asdfg#1 asdfg007 asdfg01 asdfg1 asdfg12 asdfg123 asdfg1234 asdfg12345 asdfg2020 asdfg2021
asdfg2022 asdfg2023 asdfg2024 asdfg2025 asdfg69 asdfg@123 asdfgh asdfgh! asdfgh#1 asdfgh007 asdfgh01 asdfgh1
asdfgh12 asdfgh123 asdfgh1234 asdfgh12345 asdfgh2020 asdfgh2021 asdfgh2022 asdfgh2023 asdfgh2024 asdfgh2025
asdfgh69 asdfgh@123 asdfghjk asdfghjk! asdfghjk#1 asdfghjk007 asdfghjk01 asdfghjk1 asdfghjk12 asdfghjk123
asdfghjk1234 asdfghjk12345 asdfghjk2020 asdfghjk2021 asdfghjk2022 asdfghjk2023 asdfghjk2024 asdfghjk2025
asdfghjk69 asdfghjk@123 asdfghjkl asdfghjkl! asdfghjkl#1 asdfghjkl007 asdfghjkl01 asdfghjkl1 asdfghjkl12
asdfghjkl123 asdfghjkl1234 asdfghjkl12345 asdfghjkl2020 asdfghjkl2021 asdfghjkl2022 asdfghjkl2023
asdfghjkl2024 asdfghjkl2025 asdfghjkl69 asdfghjkl@123 ashley ashley! ashley#1 ashley007 ashley01 ashley1
ashley12 ashley123 ashley1234 ashley12345 ashley2020 ashley2021 ashley2022 ashley2023 ashley2024 ashley2025
ashley69 ashley@123 asshole asshole! asshole#1 asshole007 asshole01 asshole1 asshole12 asshole123 asshole1234
asshole12345 asshole2020 asshole2021 asshole2022 asshole2023 asshole2024 asshole2025 asshole69 asshole@123
august august! august#1 august007 august01 august1 august12 august123 august1234 august12345 august2020
august2021 august2022 august2023 august2024 august2025 august69 august@123 autumn autumn! autumn#1 autumn007
autumn01 autumn1 autumn12 autumn123 autumn1234 autumn12345 autumn2020 autumn2021 autumn2022 autumn2023
autumn2024 autumn2025 autumn69 autumn@123 azerty azerty! azerty#1 azerty007 azerty01 azerty1 azerty12
azerty123 azerty1234 azerty12345 azerty2020 azerty2021 azerty2022 azerty2023 azerty2024 azerty2025 azerty69
azerty@123 baby baby! baby#1 baby007 baby01 baby1 baby12 baby123 baby1234 baby12345 baby2020 baby2021 baby2022
baby2023 baby2024 baby2025 baby69 baby@123 babyboy babyboy! babyboy#1 babyboy007 babyboy01 babyboy1 babyboy12
babyboy123 babyboy1234 babyboy12345 babyboy2020 babyboy2021 babyboy2022 babyboy2023 babyboy2024 babyboy2025
babyboy69 babyboy@123 babygirl babygirl! babygirl#1 babygirl007 babygirl01 babygirl1 babygirl12 babygirl123
babygirl1234 babygirl12345 babygirl2020 babygirl2021 babygirl2022 babygirl2023 babygirl2024 babygirl2025
babygirl69 babygirl@123 bailey bailey! bailey#1 bailey007 bailey01 bailey1 bailey12 bailey123 bailey1234
bailey12345 bailey2020 bailey2021 bailey2022 bailey2023 bailey2024 bailey2025 bailey69 bailey@123 banana
banana! banana#1 banana007 banana01 banana1 banana12 banana123 banana1234 banana12345 banana2020 banana2021
banana2022 banana2023 banana2024 banana2025 banana69 banana@123 barcelona barcelona! barcelona#1 barcelona007
barcelona01 barcelona1 barcelona12 barcelona123 barcelona1234 barcelona12345 barcelona2020 barcelona2021
barcelona2022 barcelona2023 barcelona2024 barcelona2025 barcelona69 barcelona@123 baseball baseball!
baseball#1 baseball007 baseball01 baseball1 baseball12 baseball123 baseball1234 baseball12345 baseball2020
baseball2021 baseball2022 baseball2023 baseball2024 baseball2025 baseball69 baseball@123 basketball
basketball! basketball#1 basketball007 basketball01 basketball1 basketball12 basketball123 basketball1234
basketball12345 basketball2020 basketball2021 basketball2022 basketball2023 basketball2024 basketball2025
basketball69 basketball@123 batman batman! batman#1 batman007 batman01 batman1 batman12 batman123 batman1234
batman12345 batman2020 batman2021 batman2022 batman2023 batman2024 batman2025 batman69 batman@123 beautiful
beautiful! beautiful#1 beautiful007 beautiful01 beautiful1 beautiful12 beautiful123 beautiful1234
beautiful12345 beautiful2020 beautiful2021 beautiful2022 beautiful2023 beautiful2024 beautiful2025 beautiful69
beautiful@123 believe believe! believe#1 believe007 believe01 believe1 believe12 believe123 believe1234
believe12345 believe2020 believe2021 believe2022 believe2023 believe2024 believe2025 believe69 believe@123
bella bella! bella#1 bella007 bella01 bella1 bella12 bella123 bella1234 bella12345 bella2020 bella2021
bella2022 bella2023 bella2024 bella2025 bella69 bella@123 berlin berlin! berlin#1 berlin007 berlin01 berlin1
berlin12 berlin123 berlin1234 berlin12345 berlin2020 berlin2021 berlin2022 berlin2023 berlin2024 berlin2025
berlin69 berlin@123 bestfriend bestfriend! bestfriend#1 bestfriend007 bestfriend01 bestfriend1 bestfriend12
bestfriend123 bestfriend1234 bestfriend12345 bestfriend2020 bestfriend2021 bestfriend2022 bestfriend2023
bestfriend2024 bestfriend2025 bestfriend69 bestfriend@123 bitch bitch! bitch#1 bitch007 bitch01 bitch1 bitch12
bitch123 bitch1234 bitch12345 bitch2020 bitch2021 bitch2022 bitch2023 bitch2024 bitch2025 bitch69 bitch@123
black black! black#1 black007 black01 black1 black12 black123 black1234 black12345 black2020 black2021
black2022 black2023 black2024 black2025 black69 black@123 blank blank! blank#1 blank007 blank01 blank1 blank12
blank123 blank1234 blank12345 blank2020 blank2021 blank2022 blank2023 blank2024 blank2025 blank69 blank@123
blessed blessed! blessed#1 blessed007 blessed01 blessed1 blessed12 blessed123 blessed1234 blessed12345
blessed2020 blessed2021 blessed2022 blessed2023 blessed2024 blessed2025 blessed69 blessed@123 blink182 blue
blue! blue#1 blue007 blue01 blue1 blue12 blue123 blue1234 blue12345 blue2020 blue2021 blue2022 blue2023
blue2024 blue2025 blue69 blue@123 boston boston! boston#1 boston007 boston01 boston1 boston12 boston123
boston1234 boston12345 boston2020 boston2021 boston2022 boston2023 boston2024 boston2025 boston69 boston@123
brazil brazil! brazil#1 brazil007 brazil01 brazil1 brazil12 brazil123 brazil1234 brazil12345 brazil2020
brazil2021 brazil2022 brazil2023 brazil2024 brazil2025 brazil69 brazil@123 brother brother! brother#1
brother007 brother01 brother1 brother12 brother123 brother1234 brother12345 brother2020 brother2021
brother2022 brother2023 brother2024 brother2025 brother69 brother@123 buddy buddy! buddy#1 buddy007 buddy01
buddy1 buddy12 buddy123 buddy1234 buddy12345 buddy2020 buddy2021 buddy2022 buddy2023 buddy2024 buddy2025
buddy69 buddy@123 bulls bulls! bulls#1 bulls007 bulls01 bulls1 bulls12 bulls123 bulls1234 bulls12345 bulls2020
bulls2021 bulls2022 bulls2023 bulls2024 bulls2025 bulls69 bulls@123 burger burger! burger#1 burger007 burger01
burger1 burger12 burger123 burger1234 burger12345 burger2020 burger2021 burger2022 burger2023 burger2024
burger2025 burger69 burger@123 business business! business#1 business007 business01 business1 business12
business123 business1234 business12345 business2020 business2021 business2022 business2023 business2024
business2025 business69 business@123 buster buster! buster#1 buster007 buster01 buster1 buster12 buster123
buster1234 buster12345 buster2020 buster2021 buster2022 buster2023 buster2024 buster2025 buster69 buster@123
butterfly butterfly! butterfly#1 butterfly007 butterfly01 butterfly1 butterfly12 butterfly123 butterfly1234
butterfly12345 butterfly2020 butterfly2021 butterfly2022 butterfly2023 butterfly2024 butterfly2025 butterfly69
butterfly@123 california california! california#1 california007 california01 california1 california12
california123 california1234 california12345 california2020 california2021 california2022 california2023
california2024 california2025 california69 california@123 camaro camaro! camaro#1 camaro007 camaro01 camaro1
camaro12 camaro123 camaro1234 camaro12345 camaro2020 camaro2021 camaro2022 camaro2023 camaro2024 camaro2025
camaro69 camaro@123 canada canada! canada#1 canada007 canada01 canada1 canada12 canada123 canada1234
canada12345 canada2020 canada2021 canada2022 canada2023 canada2024 canada2025 canada69 canada@123 cash cash!
cash#1 cash007 cash01 cash1 cash12 cash123 cash1234 cash12345 cash2020 cash2021 cash2022 cash2023 cash2024
cash2025 cash69 cash@123 changeit changeit! changeit#1 changeit007 changeit01 changeit1 changeit12 changeit123
changeit1234 changeit12345 changeit2020 changeit2021 changeit2022 changeit2023 changeit2024 changeit2025
changeit69 changeit@123 changeme changeme! changeme#1 changeme007 changeme01 changeme1 changeme12 changeme123
changeme1234 changeme12345 changeme2020 changeme2021 changeme2022 changeme2023 changeme2024 changeme2025
changeme69 changeme@123 charlie charlie! charlie#1 charlie007 charlie01 charlie1 charlie12 charlie123
charlie1234 charlie12345 charlie2020 charlie2021 charlie2022 charlie2023 charlie2024 charlie2025 charlie69
charlie@123 cheese cheese! cheese#1 cheese007 cheese01 cheese1 cheese12 cheese123 cheese1234 cheese12345
cheese2020 cheese2021 cheese2022 cheese2023 cheese2024 cheese2025 cheese69 cheese@123 chelsea chelsea!
chelsea#1 chelsea007 chelsea01 chelsea1 chelsea12 chelsea123 chelsea1234 chelsea12345 chelsea2020 chelsea2021
chelsea2022 chelsea2023 chelsea2024 chelsea2025 chelsea69 chelsea@123 cherry cherry! cherry#1 cherry007
cherry01 cherry1 cherry12 cherry123 cherry1234 cherry12345 cherry2020 cherry2021 cherry2022 cherry2023
cherry2024 cherry2025 cherry69 cherry@123 chicago chicago! chicago#1 chicago007 chicago01 chicago1 chicago12
chicago123 chicago1234 chicago12345 chicago2020 chicago2021 chicago2022 chicago2023 chicago2024 chicago2025
chicago69 chicago@123 chicken chicken! chicken#1 chicken007 chicken01 chicken1 chicken12 chicken123
chicken1234 chicken12345 chicken2020 chicken2021 chicken2022 chicken2023 chicken2024 chicken2025 chicken69
chicken@123 china china! china#1 china007 china01 china1 china12 china123 china1234 china12345 china2020
china2021 china2022 china2023 china2024 china2025 china69 china@123 chocolate chocolate! chocolate#1
chocolate007 chocolate01 chocolate1 chocolate12 chocolate123 chocolate1234 chocolate12345 chocolate2020
chocolate2021 chocolate2022 chocolate2023 chocolate2024 chocolate2025 chocolate69 chocolate@123 chris chris!
chris#1 chris007 chris01 chris1 chris12 chris123 chris1234 chris12345 chris2020 chris2021 chris2022 chris2023
chris2024 chris2025 chris69 chris@123 christ christ! christ#1 christ007 christ01 christ1 christ12 christ123
christ1234 christ12345 christ2020 christ2021 christ2022 christ2023 christ2024 christ2025 christ69 christ@123
christopher christopher! christopher#1 christopher007 christopher01 christopher1 christopher12 christopher123
christopher1234 christopher12345 christopher2020 christopher2021 christopher2022 christopher2023
christopher2024 christopher2025 christopher69 christopher@123 college college! college#1 college007 college01
college1 college12 college123 college1234 college12345 college2020 college2021 college2022 college2023
college2024 college2025 college69 college@123 company company! company#1 company007 company01 company1
company12 company123 company1234 company12345 company2020 company2021 company2022 company2023 company2024
company2025 company69 company@123 computer computer! computer#1 computer007 computer01 computer1 computer12
computer123 computer1234 computer12345 computer2020 computer2021 computer2022 computer2023 computer2024
computer2025 computer69 computer@123 cookie cookie! cookie#1 cookie007 cookie01 cookie1 cookie12 cookie123
cookie1234 cookie12345 cookie2020 cookie2021 cookie2022 cookie2023 cookie2024 cookie2025 cookie69 cookie@123
corona corona! corona#1 corona007 corona01 corona1 corona12 corona123 corona1234 corona12345 corona2020
corona2021 corona2022 corona2023 corona2024 corona2025 corona69 corona@123 corvette corvette! corvette#1
corvette007 corvette01 corvette1 corvette12 corvette123 corvette1234 corvette12345 corvette2020 corvette2021
corvette2022 corvette2023 corvette2024 corvette2025 corvette69 corvette@123 covid covid! covid#1 covid007
covid01 covid1 covid12 covid123 covid1234 covid12345 covid2020 covid2021 covid2022 covid2023 covid2024
covid2025 covid69 covid@123 cowboy cowboy! cowboy#1 cowboy007 cowboy01 cowboy1 cowboy12 cowboy123 cowboy1234
cowboy12345 cowboy2020 cowboy2021 cowboy2022 cowboy2023 cowboy2024 cowboy2025 cowboy69 cowboy@123 cowboys
cowboys! cowboys#1 cowboys007 cowboys01 cowboys1 cowboys12 cowboys123 cowboys1234 cowboys12345 cowboys2020
cowboys2021 cowboys2022 cowboys2023 cowboys2024 cowboys2025 cowboys69 cowboys@123 cute cute! cute#1 cute007
cute01 cute1 cute12 cute123 cute1234 cute12345 cute2020 cute2021 cute2022 cute2023 cute2024 cute2025 cute69
cute@123 daddy daddy! daddy#1 daddy007 daddy01 daddy1 daddy12 daddy123 daddy1234 daddy12345 daddy2020
daddy2021 daddy2022 daddy2023 daddy2024 daddy2025 daddy69 daddy@123 daisy daisy! daisy#1 daisy007 daisy01
daisy1 daisy12 daisy123 daisy1234 daisy12345 daisy2020 daisy2021 daisy2022 daisy2023 daisy2024 daisy2025
daisy69 daisy@123 dallas dallas! dallas#1 dallas007 dallas01 dallas1 dallas12 dallas123 dallas1234 dallas12345
dallas2020 dallas2021 dallas2022 dallas2023 dallas2024 dallas2025 dallas69 dallas@123 damn damn! damn#1
damn007 damn01 damn1 damn12 damn123 damn1234 damn12345 damn2020 damn2021 damn2022 damn2023 damn2024 damn2025
damn69 damn@123 daniel daniel! daniel#1 daniel007 daniel01 daniel1 daniel12 daniel123 daniel1234 daniel12345
daniel2020 daniel2021 daniel2022 daniel2023 daniel2024 daniel2025 daniel69 daniel@123 december december!
december#1 december007 december01 december1 december12 december123 december1234 december12345 december2020
december2021 december2022 december2023 december2024 december2025 december69 december@123 default default!
default#1 default007 default01 default1 default12 default123 default1234 default12345 default2020 default2021
default2022 default2023 default2024 default2025 default69 default@123 desktop desktop! desktop#1 desktop007
desktop01 desktop1 desktop12 desktop123 desktop1234 desktop12345 desktop2020 desktop2021 desktop2022
desktop2023 desktop2024 desktop2025 desktop69 desktop@123 diamond diamond! diamond#1 diamond007 diamond01
diamond1 diamond12 diamond123 diamond1234 diamond12345 diamond2020 diamond2021 diamond2022 diamond2023
diamond2024 diamond2025 diamond69 diamond@123 doggie doggie! doggie#1 doggie007 doggie01 doggie1 doggie12
doggie123 doggie1234 doggie12345 doggie2020 doggie2021 doggie2022 doggie2023 doggie2024 doggie2025 doggie69
doggie@123 doggy doggy! doggy#1 doggy007 doggy01 doggy1 doggy12 doggy123 doggy1234 doggy12345 doggy2020
doggy2021 doggy2022 doggy2023 doggy2024 doggy2025 doggy69 doggy@123 dolphin dolphin! dolphin#1 dolphin007
dolphin01 dolphin1 dolphin12 dolphin123 dolphin1234 dolphin12345 dolphin2020 dolphin2021 dolphin2022
dolphin2023 dolphin2024 dolphin2025 dolphin69 dolphin@123 dolphins dolphins! dolphins#1 dolphins007 dolphins01
dolphins1 dolphins12 dolphins123 dolphins1234 dolphins12345 dolphins2020 dolphins2021 dolphins2022
dolphins2023 dolphins2024 dolphins2025 dolphins69 dolphins@123 donald donald! donald#1 donald007 donald01
donald1 donald12 donald123 donald1234 donald12345 donald2020 donald2021 donald2022 donald2023 donald2024
donald2025 donald69 donald@123 dragon dragon! dragon#1 dragon007 dragon01 dragon1 dragon12 dragon123
dragon1234 dragon12345 dragon2020 dragon2021 dragon2022 dragon2023 dragon2024 dragon2025 dragon69 dragon@123
dragons dragons! dragons#1 dragons007 dragons01 dragons1 dragons12 dragons123 dragons1234 dragons12345
dragons2020 dragons2021 dragons2022 dragons2023 dragons2024 dragons2025 dragons69 dragons@123 eagle eagle!
eagle#1 eagle007 eagle01 eagle1 eagle12 eagle123 eagle1234 eagle12345 eagle2020 eagle2021 eagle2022 eagle2023
eagle2024 eagle2025 eagle69 eagle@123 eagles eagles! eagles#1 eagles007 eagles01 eagles1 eagles12 eagles123
eagles1234 eagles12345 eagles2020 eagles2021 eagles2022 eagles2023 eagles2024 eagles2025 eagles69 eagles@123
eight eight! eight#1 eight007 eight01 eight1 eight12 eight123 eight1234 eight12345 eight2020 eight2021
eight2022 eight2023 eight2024 eight2025 eight69 eight@123 emily emily! emily#1 emily007 emily01 emily1 emily12
emily123 emily1234 emily12345 emily2020 emily2021 emily2022 emily2023 emily2024 emily2025 emily69 emily@123
eminem eminem! eminem#1 eminem007 eminem01 eminem1 eminem12 eminem123 eminem1234 eminem12345 eminem2020
eminem2021 eminem2022 eminem2023 eminem2024 eminem2025 eminem69 eminem@123 empty empty! empty#1 empty007
empty01 empty1 empty12 empty123 empty1234 empty12345 empty2020 empty2021 empty2022 empty2023 empty2024
empty2025 empty69 empty@123 energy energy! energy#1 energy007 energy01 energy1 energy12 energy123 energy1234
energy12345 energy2020 energy2021 energy2022 energy2023 energy2024 energy2025 energy69 energy@123 england
england! england#1 england007 england01 england1 england12 england123 england1234 england12345 england2020
england2021 england2022 england2023 england2024 england2025 england69 england@123 everything everything!
everything#1 everything007 everything01 everything1 everything12 everything123 everything1234 everything12345
everything2020 everything2021 everything2022 everything2023 everything2024 everything2025 everything69
everything@123 facebook facebook! facebook#1 facebook007 facebook01 facebook1 facebook12 facebook123
facebook1234 facebook12345 facebook2020 facebook2021 facebook2022 facebook2023 facebook2024 facebook2025
facebook69 facebook@123 faith faith! faith#1 faith007 faith01 faith1 faith12 faith123 faith1234 faith12345
faith2020 faith2021 faith2022 faith2023 faith2024 faith2025 faith69 faith@123 falcon falcon! falcon#1
falcon007 falcon01 falcon1 falcon12 falcon123 falcon1234 falcon12345 falcon2020 falcon2021 falcon2022
falcon2023 falcon2024 falcon2025 falcon69 falcon@123 family family! family#1 family007 family01 family1
family12 family123 family1234 family12345 family2020 family2021 family2022 family2023 family2024 family2025
family69 family@123 father father! father#1 father007 father01 father1 father12 father123 father1234
father12345 father2020 father2021 father2022 father2023 father2024 father2025 father69 father@123 february
february! february#1 february007 february01 february1 february12 february123 february1234 february12345
february2020 february2021 february2022 february2023 february2024 february2025 february69 february@123 ferrari
ferrari! ferrari#1 ferrari007 ferrari01 ferrari1 ferrari12 ferrari123 ferrari1234 ferrari12345 ferrari2020
ferrari2021 ferrari2022 ferrari2023 ferrari2024 ferrari2025 ferrari69 ferrari@123 five five! five#1 five007
five01 five1 five12 five123 five1234 five12345 five2020 five2021 five2022 five2023 five2024 five2025 five69
five@123 florida florida! florida#1 florida007 florida01 florida1 florida12 florida123 florida1234
florida12345 florida2020 florida2021 florida2022 florida2023 florida2024 florida2025 florida69 florida@123
flower flower! flower#1 flower007 flower01 flower1 flower12 flower123 flower1234 flower12345 flower2020
flower2021 flower2022 flower2023 flower2024 flower2025 flower69 flower@123 flowers flowers! flowers#1
flowers007 flowers01 flowers1 flowers12 flowers123 flowers1234 flowers12345 flowers2020 flowers2021
flowers2022 flowers2023 flowers2024 flowers2025 flowers69 flowers@123 football football! football#1
football007 football01 football1 football12 football123 football1234 football12345 football2020 football2021
football2022 football2023 football2024 football2025 football69 football@123 forever forever! forever#1
forever007 forever01 forever1 forever12 forever123 forever1234 forever12345 forever2020 forever2021
forever2022 forever2023 forever2024 forever2025 forever69 forever@123 fortnite fortnite! fortnite#1
fortnite007 fortnite01 fortnite1 fortnite12 fortnite123 fortnite1234 fortnite12345 fortnite2020 fortnite2021
fortnite2022 fortnite2023 fortnite2024 fortnite2025 fortnite69 fortnite@123 four four! four#1 four007 four01
four1 four12 four123 four1234 four12345 four2020 four2021 four2022 four2023 four2024 four2025 four69 four@123
france france! france#1 france007 france01 france1 france12 france123 france1234 france12345 france2020
france2021 france2022 france2023 france2024 france2025 france69 france@123 freedom freedom! freedom#1
freedom007 freedom01 freedom1 freedom12 freedom123 freedom1234 freedom12345 freedom2020 freedom2021
freedom2022 freedom2023 freedom2024 freedom2025 freedom69 freedom@123 friday friday! friday#1 friday007
friday01 friday1 friday12 friday123 friday1234 friday12345 friday2020 friday2021 friday2022 friday2023
friday2024 friday2025 friday69 friday@123 friend friend! friend#1 friend007 friend01 friend1 friend12
friend123 friend1234 friend12345 friend2020 friend2021 friend2022 friend2023 friend2024 friend2025 friend69
friend@123 friends friends! friends#1 friends007 friends01 friends1 friends12 friends123 friends1234
friends12345 friends2020 friends2021 friends2022 friends2023 friends2024 friends2025 friends69 friends@123
fuck fuck! fuck#1 fuck007 fuck01 fuck1 fuck12 fuck123 fuck1234 fuck12345 fuck2020 fuck2021 fuck2022 fuck2023
fuck2024 fuck2025 fuck69 fuck@123 fuckme fuckme! fuckme#1 fuckme007 fuckme01 fuckme1 fuckme12 fuckme123
fuckme1234 fuckme12345 fuckme2020 fuckme2021 fuckme2022 fuckme2023 fuckme2024 fuckme2025 fuckme69 fuckme@123
fuckyou fuckyou! fuckyou#1 fuckyou007 fuckyou01 fuckyou1 fuckyou12 fuckyou123 fuckyou1234 fuckyou12345
fuckyou2020 fuckyou2021 fuckyou2022 fuckyou2023 fuckyou2024 fuckyou2025 fuckyou69 fuckyou@123 game game!
game#1 game007 game01 game1 game12 game123 game1234 game12345 game2020 game2021 game2022 game2023 game2024
game2025 game69 game@123 gamer gamer! gamer#1 gamer007 gamer01 gamer1 gamer12 gamer123 gamer1234 gamer12345
gamer2020 gamer2021 gamer2022 gamer2023 gamer2024 gamer2025 gamer69 gamer@123 games games! games#1 games007
games01 games1 games12 games123 games1234 games12345 games2020 games2021 games2022 games2023 games2024
games2025 games69 games@123 george george! george#1 george007 george01 george1 george12 george123 george1234
george12345 george2020 george2021 george2022 george2023 george2024 george2025 george69 george@123 germany
germany! germany#1 germany007 germany01 germany1 germany12 germany123 germany1234 germany12345 germany2020
germany2021 germany2022 germany2023 germany2024 germany2025 germany69 germany@123 ginger ginger! ginger#1
ginger007 ginger01 ginger1 ginger12 ginger123 ginger1234 ginger12345 ginger2020 ginger2021 ginger2022
ginger2023 ginger2024 ginger2025 ginger69 ginger@123 gmail gmail! gmail#1 gmail007 gmail01 gmail1 gmail12
gmail123 gmail1234 gmail12345 gmail2020 gmail2021 gmail2022 gmail2023 gmail2024 gmail2025 gmail69 gmail@123
god god! god#1 god007 god01 god1 god12 god123 god1234 god12345 god2020 god2021 god2022 god2023 god2024 god2025
god69 god@123 gold gold! gold#1 gold007 gold01 gold1 gold12 gold123 gold1234 gold12345 gold2020 gold2021
gold2022 gold2023 gold2024 gold2025 gold69 gold@123 golden golden! golden#1 golden007 golden01 golden1
golden12 golden123 golden1234 golden12345 golden2020 golden2021 golden2022 golden2023 golden2024 golden2025
golden69 golden@123 golf golf! golf#1 golf007 golf01 golf1 golf12 golf123 golf1234 golf12345 golf2020 golf2021
golf2022 golf2023 golf2024 golf2025 golf69 golf@123 google google! google#1 google007 google01 google1
google12 google123 google1234 google12345 google2020 google2021 google2022 google2023 google2024 google2025
google69 google@123 green green! green#1 green007 green01 green1 green12 green123 green1234 green12345
green2020 green2021 green2022 green2023 green2024 green2025 green69 green@123 guest guest! guest#1 guest007
guest01 guest1 guest12 guest123 guest1234 guest12345 guest2020 guest2021 guest2022 guest2023 guest2024
guest2025 guest69 guest@123 guitar guitar! guitar#1 guitar007 guitar01 guitar1 guitar12 guitar123 guitar1234
guitar12345 guitar2020 guitar2021 guitar2022 guitar2023 guitar2024 guitar2025 guitar69 guitar@123 hack hack!
hack#1 hack007 hack01 hack1 hack12 hack123 hack1234 hack12345 hack2020 hack2021 hack2022 hack2023 hack2024
hack2025 hack69 hack@123 hacked hacked! hacked#1 hacked007 hacked01 hacked1 hacked12 hacked123 hacked1234
hacked12345 hacked2020 hacked2021 hacked2022 hacked2023 hacked2024 hacked2025 hacked69 hacked@123 hacker
hacker! hacker#1 hacker007 hacker01 hacker1 hacker12 hacker123 hacker1234 hacker12345 hacker2020 hacker2021
hacker2022 hacker2023 hacker2024 hacker2025 hacker69 hacker@123 handsome handsome! handsome#1 handsome007
handsome01 handsome1 handsome12 handsome123 handsome1234 handsome12345 handsome2020 handsome2021 handsome2022
handsome2023 handsome2024 handsome2025 handsome69 handsome@123 hannah hannah! hannah#1 hannah007 hannah01
hannah1 hannah12 hannah123 hannah1234 hannah12345 hannah2020 hannah2021 hannah2022 hannah2023 hannah2024
hannah2025 hannah69 hannah@123 happy happy! happy#1 happy007 happy01 happy1 happy12 happy123 happy1234
happy12345 happy2020 happy2021 happy2022 happy2023 happy2024 happy2025 happy69 happy@123 hardcore hardcore!
hardcore#1 hardcore007 hardcore01 hardcore1 hardcore12 hardcore123 hardcore1234 hardcore12345 hardcore2020
hardcore2021 hardcore2022 hardcore2023 hardcore2024 hardcore2025 hardcore69 hardcore@123 harley harley!
harley#1 harley007 harley01 harley1 harley12 harley123 harley1234 harley12345 harley2020 harley2021 harley2022
harley2023 harley2024 harley2025 harley69 harley@123 heaven heaven! heaven#1 heaven007 heaven01 heaven1
heaven12 heaven123 heaven1234 heaven12345 heaven2020 heaven2021 heaven2022 heaven2023 heaven2024 heaven2025
heaven69 heaven@123 hello hello! hello#1 hello007 hello01 hello1 hello12 hello123 hello1234 hello12345
hello2020 hello2021 hello2022 hello2023 hello2024 hello2025 hello69 hello@123 hellokitty hellokitty!
hellokitty#1 hellokitty007 hellokitty01 hellokitty1 hellokitty12 hellokitty123 hellokitty1234 hellokitty12345
hellokitty2020 hellokitty2021 hellokitty2022 hellokitty2023 hellokitty2024 hellokitty2025 hellokitty69
hellokitty@123 hockey hockey! hockey#1 hockey007 hockey01 hockey1 hockey12 hockey123 hockey1234 hockey12345
hockey2020 hockey2021 hockey2022 hockey2023 hockey2024 hockey2025 hockey69 hockey@123 honey honey! honey#1
honey007 honey01 honey1 honey12 honey123 honey1234 honey12345 honey2020 honey2021 honey2022 honey2023
honey2024 honey2025 honey69 honey@123 horny horny! horny#1 horny007 horny01 horny1 horny12 horny123 horny1234
horny12345 horny2020 horny2021 horny2022 horny2023 horny2024 horny2025 horny69 horny@123 hotdog hotdog!
hotdog#1 hotdog007 hotdog01 hotdog1 hotdog12 hotdog123 hotdog1234 hotdog12345 hotdog2020 hotdog2021 hotdog2022
hotdog2023 hotdog2024 hotdog2025 hotdog69 hotdog@123 hotmail hotmail! hotmail#1 hotmail007 hotmail01 hotmail1
hotmail12 hotmail123 hotmail1234 hotmail12345 hotmail2020 hotmail2021 hotmail2022 hotmail2023 hotmail2024
hotmail2025 hotmail69 hotmail@123 hulk hulk! hulk#1 hulk007 hulk01 hulk1 hulk12 hulk123 hulk1234 hulk12345
hulk2020 hulk2021 hulk2022 hulk2023 hulk2024 hulk2025 hulk69 hulk@123 hunter hunter! hunter#1 hunter007
hunter01 hunter1 hunter12 hunter123 hunter1234 hunter12345 hunter2020 hunter2021 hunter2022 hunter2023
hunter2024 hunter2025 hunter69 hunter@123 iloveu iloveu! iloveu#1 iloveu007 iloveu01 iloveu1 iloveu12
iloveu123 iloveu1234 iloveu12345 iloveu2020 iloveu2021 iloveu2022 iloveu2023 iloveu2024 iloveu2025 iloveu69
iloveu@123 iloveyou iloveyou! iloveyou#1 iloveyou007 iloveyou01 iloveyou1 iloveyou12 iloveyou123 iloveyou1234
iloveyou12345 iloveyou2020 iloveyou2021 iloveyou2022 iloveyou2023 iloveyou2024 iloveyou2025 iloveyou69
iloveyou@123 india india! india#1 india007 india01 india1 india12 india123 india1234 india12345 india2020
india2021 india2022 india2023 india2024 india2025 india69 india@123 instagram instagram! instagram#1
instagram007 instagram01 instagram1 instagram12 instagram123 instagram1234 instagram12345 instagram2020
instagram2021 instagram2022 instagram2023 instagram2024 instagram2025 instagram69 instagram@123 internet
internet! internet#1 internet007 internet01 internet1 internet12 internet123 internet1234 internet12345
internet2020 internet2021 internet2022 internet2023 internet2024 internet2025 internet69 internet@123 ironman
ironman! ironman#1 ironman007 ironman01 ironman1 ironman12 ironman123 ironman1234 ironman12345 ironman2020
ironman2021 ironman2022 ironman2023 ironman2024 ironman2025 ironman69 ironman@123 january january! january#1
january007 january01 january1 january12 january123 january1234 january12345 january2020 january2021
january2022 january2023 january2024 january2025 january69 january@123 japan japan! japan#1 japan007 japan01
japan1 japan12 japan123 japan1234 japan12345 japan2020 japan2021 japan2022 japan2023 japan2024 japan2025
japan69 japan@123 jasmine jasmine! jasmine#1 jasmine007 jasmine01 jasmine1 jasmine12 jasmine123 jasmine1234
jasmine12345 jasmine2020 jasmine2021 jasmine2022 jasmine2023 jasmine2024 jasmine2025 jasmine69 jasmine@123
jedi jedi! jedi#1 jedi007 jedi01 jedi1 jedi12 jedi123 jedi1234 jedi12345 jedi2020 jedi2021 jedi2022 jedi2023
jedi2024 jedi2025 jedi69 jedi@123 jennifer jennifer! jennifer#1 jennifer007 jennifer01 jennifer1 jennifer12
jennifer123 jennifer1234 jennifer12345 jennifer2020 jennifer2021 jennifer2022 jennifer2023 jennifer2024
jennifer2025 jennifer69 jennifer@123 jessica jessica! jessica#1 jessica007 jessica01 jessica1 jessica12
jessica123 jessica1234 jessica12345 jessica2020 jessica2021 jessica2022 jessica2023 jessica2024 jessica2025
jessica69 jessica@123 jesus jesus! jesus#1 jesus007 jesus01 jesus1 jesus12 jesus123 jesus1234 jesus12345
jesus2020 jesus2021 jesus2022 jesus2023 jesus2024 jesus2025 jesus69 jesus@123 jordan jordan! jordan#1
jordan007 jordan01 jordan1 jordan12 jordan123 jordan1234 jordan12345 jordan2020 jordan2021 jordan2022
jordan2023 jordan2024 jordan2025 jordan23 jordan69 jordan@123 joshua joshua! joshua#1 joshua007 joshua01
joshua1 joshua12 joshua123 joshua1234 joshua12345 joshua2020 joshua2021 joshua2022 joshua2023 joshua2024
joshua2025 joshua69 joshua@123 july july! july#1 july007 july01 july1 july12 july123 july1234 july12345
july2020 july2021 july2022 july2023 july2024 july2025 july69 july@123 june june! june#1 june007 june01 june1
june12 june123 june1234 june12345 june2020 june2021 june2022 june2023 june2024 june2025 june69 june@123
justice justice! justice#1 justice007 justice01 justice1 justice12 justice123 justice1234 justice12345
justice2020 justice2021 justice2022 justice2023 justice2024 justice2025 justice69 justice@123 justin justin!
justin#1 justin007 justin01 justin1 justin12 justin123 justin1234 justin12345 justin2020 justin2021 justin2022
justin2023 justin2024 justin2025 justin69 justin@123 juventus juventus! juventus#1 juventus007 juventus01
juventus1 juventus12 juventus123 juventus1234 juventus12345 juventus2020 juventus2021 juventus2022
juventus2023 juventus2024 juventus2025 juventus69 juventus@123 killer killer! killer#1 killer007 killer01
killer1 killer12 killer123 killer1234 killer12345 killer2020 killer2021 killer2022 killer2023 killer2024
killer2025 killer69 killer@123 kitten kitten! kitten#1 kitten007 kitten01 kitten1 kitten12 kitten123
kitten1234 kitten12345 kitten2020 kitten2021 kitten2022 kitten2023 kitten2024 kitten2025 kitten69 kitten@123
kitty kitty! kitty#1 kitty007 kitty01 kitty1 kitty12 kitty123 kitty1234 kitty12345 kitty2020 kitty2021
kitty2022 kitty2023 kitty2024 kitty2025 kitty69 kitty@123 knight knight! knight#1 knight007 knight01 knight1
knight12 knight123 knight1234 knight12345 knight2020 knight2021 knight2022 knight2023 knight2024 knight2025
knight69 knight@123 kobe kobe! kobe#1 kobe007 kobe01 kobe1 kobe12 kobe123 kobe1234 kobe12345 kobe2020 kobe2021
kobe2022 kobe2023 kobe2024 kobe2025 kobe69 kobe@123 lakers lakers! lakers#1 lakers007 lakers01 lakers1
lakers12 lakers123 lakers1234 lakers12345 lakers2020 lakers2021 lakers2022 lakers2023 lakers2024 lakers2025
lakers69 lakers@123 laptop laptop! laptop#1 laptop007 laptop01 laptop1 laptop12 laptop123 laptop1234
laptop12345 laptop2020 laptop2021 laptop2022 laptop2023 laptop2024 laptop2025 laptop69 laptop@123 lauren
lauren! lauren#1 lauren007 lauren01 lauren1 lauren12 lauren123 lauren1234 lauren12345 lauren2020 lauren2021
lauren2022 lauren2023 lauren2024 lauren2025 lauren69 lauren@123 lebron lebron! lebron#1 lebron007 lebron01
lebron1 lebron12 lebron123 lebron1234 lebron12345 lebron2020 lebron2021 lebron2022 lebron2023 lebron2024
lebron2025 lebron69 lebron@123 letmein letmein! letmein#1 letmein007 letmein01 letmein1 letmein12 letmein123
letmein1234 letmein12345 letmein2020 letmein2021 letmein2022 letmein2023 letmein2024 letmein2025 letmein69
letmein@123 letmeinplease letmeinplease! letmeinplease#1 letmeinplease007 letmeinplease01 letmeinplease1
letmeinplease12 letmeinplease123 letmeinplease1234 letmeinplease12345 letmeinplease2020 letmeinplease2021
letmeinplease2022 letmeinplease2023 letmeinplease2024 letmeinplease2025 letmeinplease69 letmeinplease@123
liberty liberty! liberty#1 liberty007 liberty01 liberty1 liberty12 liberty123 liberty1234 liberty12345
liberty2020 liberty2021 liberty2022 liberty2023 liberty2024 liberty2025 liberty69 liberty@123 linux linux!
linux#1 linux007 linux01 linux1 linux12 linux123 linux1234 linux12345 linux2020 linux2021 linux2022 linux2023
linux2024 linux2025 linux69 linux@123 lion lion! lion#1 lion007 lion01 lion1 lion12 lion123 lion1234 lion12345
lion2020 lion2021 lion2022 lion2023 lion2024 lion2025 lion69 lion@123 liverpool liverpool! liverpool#1
liverpool007 liverpool01 liverpool1 liverpool12 liverpool123 liverpool1234 liverpool12345 liverpool2020
liverpool2021 liverpool2022 liverpool2023 liverpool2024 liverpool2025 liverpool69 liverpool@123 lockdown
lockdown! lockdown#1 lockdown007 lockdown01 lockdown1 lockdown12 lockdown123 lockdown1234 lockdown12345
lockdown2020 lockdown2021 lockdown2022 lockdown2023 lockdown2024 lockdown2025 lockdown69 lockdown@123 login
login! login#1 login007 login01 login1 login12 login123 login1234 login12345 login2020 login2021 login2022
login2023 login2024 login2025 login69 login@123 london london! london#1 london007 london01 london1 london12
london123 london1234 london12345 london2020 london2021 london2022 london2023 london2024 london2025 london69
london@123 love love! love#1 love007 love01 love1 love12 love123 love1234 love12345 love2020 love2021 love2022
love2023 love2024 love2025 love69 love@123 lovely lovely! lovely#1 lovely007 lovely01 lovely1 lovely12
lovely123 lovely1234 lovely12345 lovely2020 lovely2021 lovely2022 lovely2023 lovely2024 lovely2025 lovely69
lovely@123 loveme loveme! loveme#1 loveme007 loveme01 loveme1 loveme12 loveme123 loveme1234 loveme12345
loveme2020 loveme2021 loveme2022 loveme2023 loveme2024 loveme2025 loveme69 loveme@123 lover lover! lover#1
lover007 lover01 lover1 lover12 lover123 lover1234 lover12345 lover2020 lover2021 lover2022 lover2023
lover2024 lover2025 lover69 lover@123 loveu loveu! loveu#1 loveu007 loveu01 loveu1 loveu12 loveu123 loveu1234
loveu12345 loveu2020 loveu2021 loveu2022 loveu2023 loveu2024 loveu2025 loveu69 loveu@123 loveyou loveyou!
loveyou#1 loveyou007 loveyou01 loveyou1 loveyou12 loveyou123 loveyou1234 loveyou12345 loveyou2020 loveyou2021
loveyou2022 loveyou2023 loveyou2024 loveyou2025 loveyou69 loveyou@123 lucky lucky! lucky#1 lucky007 lucky01
lucky1 lucky12 lucky123 lucky1234 lucky12345 lucky2020 lucky2021 lucky2022 lucky2023 lucky2024 lucky2025
lucky69 lucky@123 lucy lucy! lucy#1 lucy007 lucy01 lucy1 lucy12 lucy123 lucy1234 lucy12345 lucy2020 lucy2021
lucy2022 lucy2023 lucy2024 lucy2025 lucy69 lucy@123 madison madison! madison#1 madison007 madison01 madison1
madison12 madison123 madison1234 madison12345 madison2020 madison2021 madison2022 madison2023 madison2024
madison2025 madison69 madison@123 maggie maggie! maggie#1 maggie007 maggie01 maggie1 maggie12 maggie123
maggie1234 maggie12345 maggie2020 maggie2021 maggie2022 maggie2023 maggie2024 maggie2025 maggie69 maggie@123
manchester manchester! manchester#1 manchester007 manchester01 manchester1 manchester12 manchester123
manchester1234 manchester12345 manchester2020 manchester2021 manchester2022 manchester2023 manchester2024
manchester2025 manchester69 manchester@123 march march! march#1 march007 march01 march1 march12 march123
march1234 march12345 march2020 march2021 march2022 march2023 march2024 march2025 march69 march@123 marina
marina! marina#1 marina007 marina01 marina1 marina12 marina123 marina1234 marina12345 marina2020 marina2021
marina2022 marina2023 marina2024 marina2025 marina69 marina@123 mario mario! mario#1 mario007 mario01 mario1
mario12 mario123 mario1234 mario12345 mario2020 mario2021 mario2022 mario2023 mario2024 mario2025 mario69
mario@123 master master! master#1 master007 master01 master1 master12 master123 master1234 master12345
master2020 master2021 master2022 master2023 master2024 master2025 master69 master@123 matrix matrix! matrix#1
matrix007 matrix01 matrix1 matrix12 matrix123 matrix1234 matrix12345 matrix2020 matrix2021 matrix2022
matrix2023 matrix2024 matrix2025 matrix69 matrix@123 matthew matthew! matthew#1 matthew007 matthew01 matthew1
matthew12 matthew123 matthew1234 matthew12345 matthew2020 matthew2021 matthew2022 matthew2023 matthew2024
matthew2025 matthew69 matthew@123 max max! max#1 max007 max01 max1 max12 max123 max1234 max12345 max2020
max2021 max2022 max2023 max2024 max2025 max69 max@123 may may! may#1 may007 may01 may1 may12 may123 may1234
may12345 may2020 may2021 may2022 may2023 may2024 may2025 may69 may@123 metallica metallica! metallica#1
metallica007 metallica01 metallica1 metallica12 metallica123 metallica1234 metallica12345 metallica2020
metallica2021 metallica2022 metallica2023 metallica2024 metallica2025 metallica69 metallica@123 mexico mexico!
mexico#1 mexico007 mexico01 mexico1 mexico12 mexico123 mexico1234 mexico12345 mexico2020 mexico2021 mexico2022
mexico2023 mexico2024 mexico2025 mexico69 mexico@123 michael michael! michael#1 michael007 michael01 michael1
michael12 michael123 michael1234 michael12345 michael2020 michael2021 michael2022 michael2023 michael2024
michael2025 michael23 michael69 michael@123 michelle michelle! michelle#1 michelle007 michelle01 michelle1
michelle12 michelle123 michelle1234 michelle12345 michelle2020 michelle2021 michelle2022 michelle2023
michelle2024 michelle2025 michelle69 michelle@123 million million! million#1 million007 million01 million1
million12 million123 million1234 million12345 million2020 million2021 million2022 million2023 million2024
million2025 million69 million@123 minecraft minecraft! minecraft#1 minecraft007 minecraft01 minecraft1
minecraft12 minecraft123 minecraft1234 minecraft12345 minecraft2020 minecraft2021 minecraft2022 minecraft2023
minecraft2024 minecraft2025 minecraft69 minecraft@123 molly molly! molly#1 molly007 molly01 molly1 molly12
molly123 molly1234 molly12345 molly2020 molly2021 molly2022 molly2023 molly2024 molly2025 molly69 molly@123
mommy mommy! mommy#1 mommy007 mommy01 mommy1 mommy12 mommy123 mommy1234 mommy12345 mommy2020 mommy2021
mommy2022 mommy2023 mommy2024 mommy2025 mommy69 mommy@123 monday monday! monday#1 monday007 monday01 monday1
monday12 monday123 monday1234 monday12345 monday2020 monday2021 monday2022 monday2023 monday2024 monday2025
monday69 monday@123 money money! money#1 money007 money01 money1 money12 money123 money1234 money12345
money2020 money2021 money2022 money2023 money2024 money2025 money69 money@123 monkey monkey! monkey#1
monkey007 monkey01 monkey1 monkey12 monkey123 monkey1234 monkey12345 monkey2020 monkey2021 monkey2022
monkey2023 monkey2024 monkey2025 monkey69 monkey@123 moonlight moonlight! moonlight#1 moonlight007 moonlight01
moonlight1 moonlight12 moonlight123 moonlight1234 moonlight12345 moonlight2020 moonlight2021 moonlight2022
moonlight2023 moonlight2024 moonlight2025 moonlight69 moonlight@123 morpheus morpheus! morpheus#1 morpheus007
morpheus01 morpheus1 morpheus12 morpheus123 morpheus1234 morpheus12345 morpheus2020 morpheus2021 morpheus2022
morpheus2023 morpheus2024 morpheus2025 morpheus69 morpheus@123 mother mother! mother#1 mother007 mother01
mother1 mother12 mother123 mother1234 mother12345 mother2020 mother2021 mother2022 mother2023 mother2024
mother2025 mother69 mother@123 music music! music#1 music007 music01 music1 music12 music123 music1234
music12345 music2020 music2021 music2022 music2023 music2024 music2025 music69 music@123 mustang mustang!
mustang#1 mustang007 mustang01 mustang1 mustang12 mustang123 mustang1234 mustang12345 mustang2020 mustang2021
mustang2022 mustang2023 mustang2024 mustang2025 mustang69 mustang@123 mylove mylove! mylove#1 mylove007
mylove01 mylove1 mylove12 mylove123 mylove1234 mylove12345 mylove2020 mylove2021 mylove2022 mylove2023
mylove2024 mylove2025 mylove69 mylove@123 myspace myspace! myspace#1 myspace007 myspace01 myspace1 myspace12
myspace123 myspace1234 myspace12345 myspace2020 myspace2021 myspace2022 myspace2023 myspace2024 myspace2025
myspace69 myspace@123 naruto naruto! naruto#1 naruto007 naruto01 naruto1 naruto12 naruto123 naruto1234
naruto12345 naruto2020 naruto2021 naruto2022 naruto2023 naruto2024 naruto2025 naruto69 naruto@123 natasha
natasha! natasha#1 natasha007 natasha01 natasha1 natasha12 natasha123 natasha1234 natasha12345 natasha2020
natasha2021 natasha2022 natasha2023 natasha2024 natasha2025 natasha69 natasha@123 neo neo! neo#1 neo007 neo01
neo1 neo12 neo123 neo1234 neo12345 neo2020 neo2021 neo2022 neo2023 neo2024 neo2025 neo69 neo@123 newyork
newyork! newyork#1 newyork007 newyork01 newyork1 newyork12 newyork123 newyork1234 newyork12345 newyork2020
newyork2021 newyork2022 newyork2023 newyork2024 newyork2025 newyork69 newyork@123 nicole nicole! nicole#1
nicole007 nicole01 nicole1 nicole12 nicole123 nicole1234 nicole12345 nicole2020 nicole2021 nicole2022
nicole2023 nicole2024 nicole2025 nicole69 nicole@123 nine nine! nine#1 nine007 nine01 nine1 nine12 nine123
nine1234 nine12345 nine2020 nine2021 nine2022 nine2023 nine2024 nine2025 nine69 nine@123 ninja ninja! ninja#1
ninja007 ninja01 ninja1 ninja12 ninja123 ninja1234 ninja12345 ninja2020 ninja2021 ninja2022 ninja2023
ninja2024 ninja2025 ninja69 ninja@123 nirvana nirvana! nirvana#1 nirvana007 nirvana01 nirvana1 nirvana12
nirvana123 nirvana1234 nirvana12345 nirvana2020 nirvana2021 nirvana2022 nirvana2023 nirvana2024 nirvana2025
nirvana69 nirvana@123 nopass nopass! nopass#1 nopass007 nopass01 nopass1 nopass12 nopass123 nopass1234
nopass12345 nopass2020 nopass2021 nopass2022 nopass2023 nopass2024 nopass2025 nopass69 nopass@123 nopassword
nopassword! nopassword#1 nopassword007 nopassword01 nopassword1 nopassword12 nopassword123 nopassword1234
nopassword12345 nopassword2020 nopassword2021 nopassword2022 nopassword2023 nopassword2024 nopassword2025
nopassword69 nopassword@123 nothing nothing! nothing#1 nothing007 nothing01 nothing1 nothing12 nothing123
nothing1234 nothing12345 nothing2020 nothing2021 nothing2022 nothing2023 nothing2024 nothing2025 nothing69
nothing@123 november november! november#1 november007 november01 november1 november12 november123 november1234
november12345 november2020 november2021 november2022 november2023 november2024 november2025 november69
november@123 obama obama! obama#1 obama007 obama01 obama1 obama12 obama123 obama1234 obama12345 obama2020
obama2021 obama2022 obama2023 obama2024 obama2025 obama69 obama@123 october october! october#1 october007
october01 october1 october12 october123 october1234 october12345 october2020 october2021 october2022
october2023 october2024 october2025 october69 october@123 office office! office#1 office007 office01 office1
office12 office123 office1234 office12345 office2020 office2021 office2022 office2023 office2024 office2025
office69 office@123 olivia olivia! olivia#1 olivia007 olivia01 olivia1 olivia12 olivia123 olivia1234
olivia12345 olivia2020 olivia2021 olivia2022 olivia2023 olivia2024 olivia2025 olivia69 olivia@123 one one!
one#1 one007 one01 one1 one12 one123 one1234 one12345 one2020 one2021 one2022 one2023 one2024 one2025 one69
one@123 orange orange! orange#1 orange007 orange01 orange1 orange12 orange123 orange1234 orange12345
orange2020 orange2021 orange2022 orange2023 orange2024 orange2025 orange69 orange@123 outlook outlook!
outlook#1 outlook007 outlook01 outlook1 outlook12 outlook123 outlook1234 outlook12345 outlook2020 outlook2021
outlook2022 outlook2023 outlook2024 outlook2025 outlook69 outlook@123 p@ssw0rd p@ssword p@ssword! p@ssword#1
p@ssword007 p@ssword01 p@ssword1 p@ssword12 p@ssword123 p@ssword1234 p@ssword12345 p@ssword2020 p@ssword2021
p@ssword2022 p@ssword2023 p@ssword2024 p@ssword2025 p@ssword69 p@ssword@123 pa$$word pa$$word! pa$$word#1
pa$$word007 pa$$word01 pa$$word1 pa$$word12 pa$$word123 pa$$word1234 pa$$word12345 pa$$word2020 pa$$word2021
pa$$word2022 pa$$word2023 pa$$word2024 pa$$word2025 pa$$word69 pa$$word@123 pa55word paris paris! paris#1
paris007 paris01 paris1 paris12 paris123 paris1234 paris12345 paris2020 paris2021 paris2022 paris2023
paris2024 paris2025 paris69 paris@123 pass pass! pass#1 pass007 pass01 pass1 pass12 pass123 pass1234 pass12345
pass2020 pass2021 pass2022 pass2023 pass2024 pass2025 pass69 pass@123 passpass passpass! passpass#1
passpass007 passpass01 passpass1 passpass12 passpass123 passpass1234 passpass12345 passpass2020 passpass2021
passpass2022 passpass2023 passpass2024 passpass2025 passpass69 passpass@123 passw0rd passwd passwd! passwd#1
passwd007 passwd01 passwd1 passwd12 passwd123 passwd1234 passwd12345 passwd2020 passwd2021 passwd2022
passwd2023 passwd2024 passwd2025 passwd69 passwd@123 password password! password!! password!#1 password!007
password!01 password!1 password!12 password!123 password!1234 password!12345 password!2020 password!2021
password!2022 password!2023 password!2024 password!2025 password!69 password!@123 password#1 password007
password01 password1 password12 password123 password1234 password12345 password2020 password2021 password2022
password2023 password2024 password2025 password69 password@123 peace peace! peace#1 peace007 peace01 peace1
peace12 peace123 peace1234 peace12345 peace2020 peace2021 peace2022 peace2023 peace2024 peace2025 peace69
peace@123 pepper pepper! pepper#1 pepper007 pepper01 pepper1 pepper12 pepper123 pepper1234 pepper12345
pepper2020 pepper2021 pepper2022 pepper2023 pepper2024 pepper2025 pepper69 pepper@123 pikachu pikachu!
pikachu#1 pikachu007 pikachu01 pikachu1 pikachu12 pikachu123 pikachu1234 pikachu12345 pikachu2020 pikachu2021
pikachu2022 pikachu2023 pikachu2024 pikachu2025 pikachu69 pikachu@123 pink pink! pink#1 pink007 pink01 pink1
pink12 pink123 pink1234 pink12345 pink2020 pink2021 pink2022 pink2023 pink2024 pink2025 pink69 pink@123 pizza
pizza! pizza#1 pizza007 pizza01 pizza1 pizza12 pizza123 pizza1234 pizza12345 pizza2020 pizza2021 pizza2022
pizza2023 pizza2024 pizza2025 pizza69 pizza@123 player player! player#1 player007 player01 player1 player12
player123 player1234 player12345 player2020 player2021 player2022 player2023 player2024 player2025 player69
player@123 pokemon pokemon! pokemon#1 pokemon007 pokemon01 pokemon1 pokemon12 pokemon123 pokemon1234
pokemon12345 pokemon2020 pokemon2021 pokemon2022 pokemon2023 pokemon2024 pokemon2025 pokemon69 pokemon@123
porsche porsche! porsche#1 porsche007 porsche01 porsche1 porsche12 porsche123 porsche1234 porsche12345
porsche2020 porsche2021 porsche2022 porsche2023 porsche2024 porsche2025 porsche69 porsche@123 power power!
power#1 power007 power01 power1 power12 power123 power1234 power12345 power2020 power2021 power2022 power2023
power2024 power2025 power69 power@123 pretty pretty! pretty#1 pretty007 pretty01 pretty1 pretty12 pretty123
pretty1234 pretty12345 pretty2020 pretty2021 pretty2022 pretty2023 pretty2024 pretty2025 pretty69 pretty@123
prince prince! prince#1 prince007 prince01 prince1 prince12 prince123 prince1234 prince12345 prince2020
prince2021 prince2022 prince2023 prince2024 prince2025 prince69 prince@123 princess princess! princess#1
princess007 princess01 princess1 princess12 princess123 princess1234 princess12345 princess2020 princess2021
princess2022 princess2023 princess2024 princess2025 princess69 princess@123 private private! private#1
private007 private01 private1 private12 private123 private1234 private12345 private2020 private2021
private2022 private2023 private2024 private2025 private69 private@123 public public! public#1 public007
public01 public1 public12 public123 public1234 public12345 public2020 public2021 public2022 public2023
public2024 public2025 public69 public@123 puppy puppy! puppy#1 puppy007 puppy01 puppy1 puppy12 puppy123
puppy1234 puppy12345 puppy2020 puppy2021 puppy2022 puppy2023 puppy2024 puppy2025 puppy69 puppy@123 purple
purple! purple#1 purple007 purple01 purple1 purple12 purple123 purple1234 purple12345 purple2020 purple2021
purple2022 purple2023 purple2024 purple2025 purple69 purple@123 pussy pussy! pussy#1 pussy007 pussy01 pussy1
pussy12 pussy123 pussy1234 pussy12345 pussy2020 pussy2021 pussy2022 pussy2023 pussy2024 pussy2025 pussy69
pussy@123 qaz123 qazwsx qazwsx! qazwsx#1 qazwsx007 qazwsx01 qazwsx1 qazwsx12 qazwsx123 qazwsx1234 qazwsx12345
qazwsx2020 qazwsx2021 qazwsx2022 qazwsx2023 qazwsx2024 qazwsx2025 qazwsx69 qazwsx@123 qwe123 qweasd qweasd!
qweasd#1 qweasd007 qweasd01 qweasd1 qweasd12 qweasd123 qweasd1234 qweasd12345 qweasd2020 qweasd2021 qweasd2022
qweasd2023 qweasd2024 qweasd2025 qweasd69 qweasd@123 qweasdzxc qweasdzxc! qweasdzxc#1 qweasdzxc007 qweasdzxc01
qweasdzxc1 qweasdzxc12 qweasdzxc123 qweasdzxc1234 qweasdzxc12345 qweasdzxc2020 qweasdzxc2021 qweasdzxc2022
qweasdzxc2023 qweasdzxc2024 qweasdzxc2025 qweasdzxc69 qweasdzxc@123 qwer qwer! qwer#1 qwer007 qwer01 qwer1
qwer12 qwer123 qwer1234 qwer12345 qwer2020 qwer2021 qwer2022 qwer2023 qwer2024 qwer2025 qwer69 qwer@123 qwert
qwert! qwert#1 qwert007 qwert01 qwert1 qwert12 qwert123 qwert1234 qwert12345 qwert2020 qwert2021 qwert2022
qwert2023 qwert2024 qwert2025 qwert69 qwert@123 qwerty qwerty! qwerty#1 qwerty007 qwerty01 qwerty1 qwerty12
qwerty123 qwerty1234 qwerty12345 qwerty2020 qwerty2021 qwerty2022 qwerty2023 qwerty2024 qwerty2025 qwerty69
qwerty@123 qwertyu qwertyu! qwertyu#1 qwertyu007 qwertyu01 qwertyu1 qwertyu12 qwertyu123 qwertyu1234
qwertyu12345 qwertyu2020 qwertyu2021 qwertyu2022 qwertyu2023 qwertyu2024 qwertyu2025 qwertyu69 qwertyu@123
qwertyui qwertyui! qwertyui#1 qwertyui007 qwertyui01 qwertyui1 qwertyui12 qwertyui123 qwertyui1234
qwertyui12345 qwertyui2020 qwertyui2021 qwertyui2022 qwertyui2023 qwertyui2024 qwertyui2025 qwertyui69
qwertyui@123 qwertyuiop qwertyuiop! qwertyuiop#1 qwertyuiop007 qwertyuiop01 qwertyuiop1 qwertyuiop12
qwertyuiop123 qwertyuiop1234 qwertyuiop12345 qwertyuiop2020 qwertyuiop2021 qwertyuiop2022 qwertyuiop2023
qwertyuiop2024 qwertyuiop2025 qwertyuiop69 qwertyuiop@123 qwertz qwertz! qwertz#1 qwertz007 qwertz01 qwertz1
qwertz12 qwertz123 qwertz1234 qwertz12345 qwertz2020 qwertz2021 qwertz2022 qwertz2023 qwertz2024 qwertz2025
qwertz69 qwertz@123 rainbow rainbow! rainbow#1 rainbow007 rainbow01 rainbow1 rainbow12 rainbow123 rainbow1234
rainbow12345 rainbow2020 rainbow2021 rainbow2022 rainbow2023 rainbow2024 rainbow2025 rainbow69 rainbow@123
realmadrid realmadrid! realmadrid#1 realmadrid007 realmadrid01 realmadrid1 realmadrid12 realmadrid123
realmadrid1234 realmadrid12345 realmadrid2020 realmadrid2021 realmadrid2022 realmadrid2023 realmadrid2024
realmadrid2025 realmadrid69 realmadrid@123 red red! red#1 red007 red01 red1 red12 red123 red1234 red12345
red2020 red2021 red2022 red2023 red2024 red2025 red69 red@123 rich rich! rich#1 rich007 rich01 rich1 rich12
rich123 rich1234 rich12345 rich2020 rich2021 rich2022 rich2023 rich2024 rich2025 rich69 rich@123 robert
robert! robert#1 robert007 robert01 robert1 robert12 robert123 robert1234 robert12345 robert2020 robert2021
robert2022 robert2023 robert2024 robert2025 robert69 robert@123 roblox roblox! roblox#1 roblox007 roblox01
roblox1 roblox12 roblox123 roblox1234 roblox12345 roblox2020 roblox2021 roblox2022 roblox2023 roblox2024
roblox2025 roblox69 roblox@123 rockstar rockstar! rockstar#1 rockstar007 rockstar01 rockstar1 rockstar12
rockstar123 rockstar1234 rockstar12345 rockstar2020 rockstar2021 rockstar2022 rockstar2023 rockstar2024
rockstar2025 rockstar69 rockstar@123 rocky rocky! rocky#1 rocky007 rocky01 rocky1 rocky12 rocky123 rocky1234
rocky12345 rocky2020 rocky2021 rocky2022 rocky2023 rocky2024 rocky2025 rocky69 rocky@123 root root! root#1
root007 root01 root1 root12 root123 root1234 root12345 root2020 root2021 root2022 root2023 root2024 root2025
root69 root@123 russia russia! russia#1 russia007 russia01 russia1 russia12 russia123 russia1234 russia12345
russia2020 russia2021 russia2022 russia2023 russia2024 russia2025 russia69 russia@123 sadie sadie! sadie#1
sadie007 sadie01 sadie1 sadie12 sadie123 sadie1234 sadie12345 sadie2020 sadie2021 sadie2022 sadie2023
sadie2024 sadie2025 sadie69 sadie@123 samantha samantha! samantha#1 samantha007 samantha01 samantha1
samantha12 samantha123 samantha1234 samantha12345 samantha2020 samantha2021 samantha2022 samantha2023
samantha2024 samantha2025 samantha69 samantha@123 samurai samurai! samurai#1 samurai007 samurai01 samurai1
samurai12 samurai123 samurai1234 samurai12345 samurai2020 samurai2021 samurai2022 samurai2023 samurai2024
samurai2025 samurai69 samurai@123 saturday saturday! saturday#1 saturday007 saturday01 saturday1 saturday12
saturday123 saturday1234 saturday12345 saturday2020 saturday2021 saturday2022 saturday2023 saturday2024
saturday2025 saturday69 saturday@123 school school! school#1 school007 school01 school1 school12 school123
school1234 school12345 school2020 school2021 school2022 school2023 school2024 school2025 school69 school@123
secret secret! secret#1 secret007 secret01 secret1 secret12 secret123 secret1234 secret12345 secret2020
secret2021 secret2022 secret2023 secret2024 secret2025 secret69 secret@123 secure secure! secure#1 secure007
secure01 secure1 secure12 secure123 secure1234 secure12345 secure2020 secure2021 secure2022 secure2023
secure2024 secure2025 secure69 secure@123 security security! security#1 security007 security01 security1
security12 security123 security1234 security12345 security2020 security2021 security2022 security2023
security2024 security2025 security69 security@123 september september! september#1 september007 september01
september1 september12 september123 september1234 september12345 september2020 september2021 september2022
september2023 september2024 september2025 september69 september@123 seven seven! seven#1 seven007 seven01
seven1 seven12 seven123 seven1234 seven12345 seven2020 seven2021 seven2022 seven2023 seven2024 seven2025
seven69 seven@123 sex sex! sex#1 sex007 sex01 sex1 sex12 sex123 sex1234 sex12345 sex2020 sex2021 sex2022
sex2023 sex2024 sex2025 sex69 sex@123 sexy sexy! sexy#1 sexy007 sexy01 sexy1 sexy12 sexy123 sexy1234 sexy12345
sexy2020 sexy2021 sexy2022 sexy2023 sexy2024 sexy2025 sexy69 sexy@123 shadow shadow! shadow#1 shadow007
shadow01 shadow1 shadow12 shadow123 shadow1234 shadow12345 shadow2020 shadow2021 shadow2022 shadow2023
shadow2024 shadow2025 shadow69 shadow@123 shit shit! shit#1 shit007 shit01 shit1 shit12 shit123 shit1234
shit12345 shit2020 shit2021 shit2022 shit2023 shit2024 shit2025 shit69 shit@123 silver silver! silver#1
silver007 silver01 silver1 silver12 silver123 silver1234 silver12345 silver2020 silver2021 silver2022
silver2023 silver2024 silver2025 silver69 silver@123 sister sister! sister#1 sister007 sister01 sister1
sister12 sister123 sister1234 sister12345 sister2020 sister2021 sister2022 sister2023 sister2024 sister2025
sister69 sister@123 six six! six#1 six007 six01 six1 six12 six123 six1234 six12345 six2020 six2021 six2022
six2023 six2024 six2025 six69 six@123 slipknot slipknot! slipknot#1 slipknot007 slipknot01 slipknot1
slipknot12 slipknot123 slipknot1234 slipknot12345 slipknot2020 slipknot2021 slipknot2022 slipknot2023
slipknot2024 slipknot2025 slipknot69 slipknot@123 smile smile! smile#1 smile007 smile01 smile1 smile12
smile123 smile1234 smile12345 smile2020 smile2021 smile2022 smile2023 smile2024 smile2025 smile69 smile@123
soccer soccer! soccer#1 soccer007 soccer01 soccer1 soccer12 soccer123 soccer1234 soccer12345 soccer2020
soccer2021 soccer2022 soccer2023 soccer2024 soccer2025 soccer69 soccer@123 something something! something#1
something007 something01 something1 something12 something123 something1234 something12345 something2020
something2021 something2022 something2023 something2024 something2025 something69 something@123 sophie sophie!
sophie#1 sophie007 sophie01 sophie1 sophie12 sophie123 sophie1234 sophie12345 sophie2020 sophie2021 sophie2022
sophie2023 sophie2024 sophie2025 sophie69 sophie@123 spiderman spiderman! spiderman#1 spiderman007 spiderman01
spiderman1 spiderman12 spiderman123 spiderman1234 spiderman12345 spiderman2020 spiderman2021 spiderman2022
spiderman2023 spiderman2024 spiderman2025 spiderman69 spiderman@123 spring spring! spring#1 spring007 spring01
spring1 spring12 spring123 spring1234 spring12345 spring2020 spring2021 spring2022 spring2023 spring2024
spring2025 spring69 spring@123 star star! star#1 star007 star01 star1 star12 star123 star1234 star12345
star2020 star2021 star2022 star2023 star2024 star2025 star69 star@123 starlight starlight! starlight#1
starlight007 starlight01 starlight1 starlight12 starlight123 starlight1234 starlight12345 starlight2020
starlight2021 starlight2022 starlight2023 starlight2024 starlight2025 starlight69 starlight@123 stars stars!
stars#1 stars007 stars01 stars1 stars12 stars123 stars1234 stars12345 stars2020 stars2021 stars2022 stars2023
stars2024 stars2025 stars69 stars@123 starwars starwars! starwars#1 starwars007 starwars01 starwars1
starwars12 starwars123 starwars1234 starwars12345 starwars2020 starwars2021 starwars2022 starwars2023
starwars2024 starwars2025 starwars69 starwars@123 student student! student#1 student007 student01 student1
student12 student123 student1234 student12345 student2020 student2021 student2022 student2023 student2024
student2025 student69 student@123 summer summer! summer#1 summer007 summer01 summer1 summer12 summer123
summer1234 summer12345 summer2020 summer2021 summer2022 summer2023 summer2024 summer2025 summer69 summer@123
sunday sunday! sunday#1 sunday007 sunday01 sunday1 sunday12 sunday123 sunday1234 sunday12345 sunday2020
sunday2021 sunday2022 sunday2023 sunday2024 sunday2025 sunday69 sunday@123 sunrise sunrise! sunrise#1
sunrise007 sunrise01 sunrise1 sunrise12 sunrise123 sunrise1234 sunrise12345 sunrise2020 sunrise2021
sunrise2022 sunrise2023 sunrise2024 sunrise2025 sunrise69 sunrise@123 sunset sunset! sunset#1 sunset007
sunset01 sunset1 sunset12 sunset123 sunset1234 sunset12345 sunset2020 sunset2021 sunset2022 sunset2023
sunset2024 sunset2025 sunset69 sunset@123 sunshine sunshine! sunshine#1 sunshine007 sunshine01 sunshine1
sunshine12 sunshine123 sunshine1234 sunshine12345 sunshine2020 sunshine2021 sunshine2022 sunshine2023
sunshine2024 sunshine2025 sunshine69 sunshine@123 superman superman! superman#1 superman007 superman01
superman1 superman12 superman123 superman1234 superman12345 superman2020 superman2021 superman2022
superman2023 superman2024 superman2025 superman69 superman@123 superstar superstar! superstar#1 superstar007
superstar01 superstar1 superstar12 superstar123 superstar1234 superstar12345 superstar2020 superstar2021
superstar2022 superstar2023 superstar2024 superstar2025 superstar69 superstar@123 svetlana svetlana!
svetlana#1 svetlana007 svetlana01 svetlana1 svetlana12 svetlana123 svetlana1234 svetlana12345 svetlana2020
svetlana2021 svetlana2022 svetlana2023 svetlana2024 svetlana2025 svetlana69 svetlana@123 sweetheart
sweetheart! sweetheart#1 sweetheart007 sweetheart01 sweetheart1 sweetheart12 sweetheart123 sweetheart1234
sweetheart12345 sweetheart2020 sweetheart2021 sweetheart2022 sweetheart2023 sweetheart2024 sweetheart2025
sweetheart69 sweetheart@123 sweetie sweetie! sweetie#1 sweetie007 sweetie01 sweetie1 sweetie12 sweetie123
sweetie1234 sweetie12345 sweetie2020 sweetie2021 sweetie2022 sweetie2023 sweetie2024 sweetie2025 sweetie69
sweetie@123 taylor taylor! taylor#1 taylor007 taylor01 taylor1 taylor12 taylor123 taylor1234 taylor12345
taylor2020 taylor2021 taylor2022 taylor2023 taylor2024 taylor2025 taylor69 taylor@123 teacher teacher!
teacher#1 teacher007 teacher01 teacher1 teacher12 teacher123 teacher1234 teacher12345 teacher2020 teacher2021
teacher2022 teacher2023 teacher2024 teacher2025 teacher69 teacher@123 temp temp! temp#1 temp007 temp01 temp1
temp12 temp123 temp1234 temp12345 temp2020 temp2021 temp2022 temp2023 temp2024 temp2025 temp69 temp@123
temporary temporary! temporary#1 temporary007 temporary01 temporary1 temporary12 temporary123 temporary1234
temporary12345 temporary2020 temporary2021 temporary2022 temporary2023 temporary2024 temporary2025 temporary69
temporary@123 ten ten! ten#1 ten007 ten01 ten1 ten12 ten123 ten1234 ten12345 ten2020 ten2021 ten2022 ten2023
ten2024 ten2025 ten69 ten@123 tennis tennis! tennis#1 tennis007 tennis01 tennis1 tennis12 tennis123 tennis1234
tennis12345 tennis2020 tennis2021 tennis2022 tennis2023 tennis2024 tennis2025 tennis69 tennis@123 test test!
test#1 test007 test01 test1 test12 test123 test1234 test12345 test2020 test2021 test2022 test2023 test2024
test2025 test69 test@123 tester tester! tester#1 tester007 tester01 tester1 tester12 tester123 tester1234
tester12345 tester2020 tester2021 tester2022 tester2023 tester2024 tester2025 tester69 tester@123 testing
testing! testing#1 testing007 testing01 testing1 testing12 testing123 testing1234 testing12345 testing2020
testing2021 testing2022 testing2023 testing2024 testing2025 testing69 testing@123 texas texas! texas#1
texas007 texas01 texas1 texas12 texas123 texas1234 texas12345 texas2020 texas2021 texas2022 texas2023
texas2024 texas2025 texas69 texas@123 thomas thomas! thomas#1 thomas007 thomas01 thomas1 thomas12 thomas123
thomas1234 thomas12345 thomas2020 thomas2021 thomas2022 thomas2023 thomas2024 thomas2025 thomas69 thomas@123
three three! three#1 three007 three01 three1 three12 three123 three1234 three12345 three2020 three2021
three2022 three2023 three2024 three2025 three69 three@123 thursday thursday! thursday#1 thursday007 thursday01
thursday1 thursday12 thursday123 thursday1234 thursday12345 thursday2020 thursday2021 thursday2022
thursday2023 thursday2024 thursday2025 thursday69 thursday@123 tiger tiger! tiger#1 tiger007 tiger01 tiger1
tiger12 tiger123 tiger1234 tiger12345 tiger2020 tiger2021 tiger2022 tiger2023 tiger2024 tiger2025 tiger69
tiger@123 tigers tigers! tigers#1 tigers007 tigers01 tigers1 tigers12 tigers123 tigers1234 tigers12345
tigers2020 tigers2021 tigers2022 tigers2023 tigers2024 tigers2025 tigers69 tigers@123 tigger tigger! tigger#1
tigger007 tigger01 tigger1 tigger12 tigger123 tigger1234 tigger12345 tigger2020 tigger2021 tigger2022
tigger2023 tigger2024 tigger2025 tigger69 tigger@123 toor toor! toor#1 toor007 toor01 toor1 toor12 toor123
toor1234 toor12345 toor2020 toor2021 toor2022 toor2023 toor2024 toor2025 toor69 toor@123 trump trump! trump#1
trump007 trump01 trump1 trump12 trump123 trump1234 trump12345 trump2020 trump2021 trump2022 trump2023
trump2024 trump2025 trump69 trump@123 trustme trustme! trustme#1 trustme007 trustme01 trustme1 trustme12
trustme123 trustme1234 trustme12345 trustme2020 trustme2021 trustme2022 trustme2023 trustme2024 trustme2025
trustme69 trustme@123 trustno1 tuesday tuesday! tuesday#1 tuesday007 tuesday01 tuesday1 tuesday12 tuesday123
tuesday1234 tuesday12345 tuesday2020 tuesday2021 tuesday2022 tuesday2023 tuesday2024 tuesday2025 tuesday69
tuesday@123 turkey turkey! turkey#1 turkey007 turkey01 turkey1 turkey12 turkey123 turkey1234 turkey12345
turkey2020 turkey2021 turkey2022 turkey2023 turkey2024 turkey2025 turkey69 turkey@123 twitter twitter!
twitter#1 twitter007 twitter01 twitter1 twitter12 twitter123 twitter1234 twitter12345 twitter2020 twitter2021
twitter2022 twitter2023 twitter2024 twitter2025 twitter69 twitter@123 two two! two#1 two007 two01 two1 two12
two123 two1234 two12345 two2020 two2021 two2022 two2023 two2024 two2025 two69 two@123 ubuntu ubuntu! ubuntu#1
ubuntu007 ubuntu01 ubuntu1 ubuntu12 ubuntu123 ubuntu1234 ubuntu12345 ubuntu2020 ubuntu2021 ubuntu2022
ubuntu2023 ubuntu2024 ubuntu2025 ubuntu69 ubuntu@123 united united! united#1 united007 united01 united1
united12 united123 united1234 united12345 united2020 united2021 united2022 united2023 united2024 united2025
united69 united@123 user user! user#1 user007 user01 user1 user12 user123 user1234 user12345 user2020 user2021
user2022 user2023 user2024 user2025 user69 user@123 warrior warrior! warrior#1 warrior007 warrior01 warrior1
warrior12 warrior123 warrior1234 warrior12345 warrior2020 warrior2021 warrior2022 warrior2023 warrior2024
warrior2025 warrior69 warrior@123 wednesday wednesday! wednesday#1 wednesday007 wednesday01 wednesday1
wednesday12 wednesday123 wednesday1234 wednesday12345 wednesday2020 wednesday2021 wednesday2022 wednesday2023
wednesday2024 wednesday2025 wednesday69 wednesday@123 welcome welcome! welcome#1 welcome007 welcome01 welcome1
welcome12 welcome123 welcome1234 welcome12345 welcome2020 welcome2021 welcome2022 welcome2023 welcome2024
welcome2025 welcome69 welcome@123 whatever whatever! whatever#1 whatever007 whatever01 whatever1 whatever12
whatever123 whatever1234 whatever12345 whatever2020 whatever2021 whatever2022 whatever2023 whatever2024
whatever2025 whatever69 whatever@123 white white! white#1 white007 white01 white1 white12 white123 white1234
white12345 white2020 white2021 white2022 white2023 white2024 white2025 white69 white@123 william william!
william#1 william007 william01 william1 william12 william123 william1234 william12345 william2020 william2021
william2022 william2023 william2024 william2025 william69 william@123 windows windows! windows#1 windows007
windows01 windows1 windows12 windows123 windows1234 windows12345 windows2020 windows2021 windows2022
windows2023 windows2024 windows2025 windows69 windows@123 winter winter! winter#1 winter007 winter01 winter1
winter12 winter123 winter1234 winter12345 winter2020 winter2021 winter2022 winter2023 winter2024 winter2025
winter69 winter@123 wizard wizard! wizard#1 wizard007 wizard01 wizard1 wizard12 wizard123 wizard1234
wizard12345 wizard2020 wizard2021 wizard2022 wizard2023 wizard2024 wizard2025 wizard69 wizard@123 yahoo yahoo!
yahoo#1 yahoo007 yahoo01 yahoo1 yahoo12 yahoo123 yahoo1234 yahoo12345 yahoo2020 yahoo2021 yahoo2022 yahoo2023
yahoo2024 yahoo2025 yahoo69 yahoo@123 yankees yankees! yankees#1 yankees007 yankees01 yankees1 yankees12
yankees123 yankees1234 yankees12345 yankees2020 yankees2021 yankees2022 yankees2023 yankees2024 yankees2025
yankees69 yankees@123 yellow yellow! yellow#1 yellow007 yellow01 yellow1 yellow12 yellow123 yellow1234
yellow12345 yellow2020 yellow2021 yellow2022 yellow2023 yellow2024 yellow2025 yellow69 yellow@123 yoda yoda!
yoda#1 yoda007 yoda01 yoda1 yoda12 yoda123 yoda1234 yoda12345 yoda2020 yoda2021 yoda2022 yoda2023 yoda2024
yoda2025 yoda69 yoda@123 youtube youtube! youtube#1 youtube007 youtube01 youtube1 youtube12 youtube123
youtube1234 youtube12345 youtube2020 youtube2021 youtube2022 youtube2023 youtube2024 youtube2025 youtube69
youtube@123 zaq123 zaq12wsx zaq1zaq1 zelda zelda! zelda#1 zelda007 zelda01 zelda1 zelda12 zelda123 zelda1234
zelda12345 zelda2020 zelda2021 zelda2022 zelda2023 zelda2024 zelda2025 zelda69 zelda@123 zxc123 zxcvbn zxcvbn!
zxcvbn#1 zxcvbn007 zxcvbn01 zxcvbn1 zxcvbn12 zxcvbn123 zxcvbn1234 zxcvbn12345 zxcvbn2020 zxcvbn2021 zxcvbn2022
zxcvbn2023 zxcvbn2024 zxcvbn2025 zxcvbn69 zxcvbn@123 zxcvbnm zxcvbnm! zxcvbnm#1 zxcvbnm007 zxcvbnm01 zxcvbnm1
zxcvbnm12 zxcvbnm123 zxcvbnm1234 zxcvbnm12345 zxcvbnm2020 zxcvbnm2021 zxcvbnm2022 zxcvbnm2023 zxcvbnm2024
zxcvbnm2025 zxcvbnm69 zxcvbnm@123
`;

export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter((word) => word.length > 0));
