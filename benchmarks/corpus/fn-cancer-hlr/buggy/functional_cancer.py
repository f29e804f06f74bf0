from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from keras.layers import Input, Dense, Dropout
from keras.models import Model
from keras import optimizers
from keras.callbacks import EarlyStopping

LEARNING_RATE = 10
PATIENCE = 20

cancer = load_breast_cancer()
x_train, x_test, y_train, y_test = train_test_split(cancer.data, cancer.target, test_size=0.2)
sc = StandardScaler()
x_train = sc.fit_transform(x_train)
x_test = sc.transform(x_test)

inp = Input(shape=(30,))
h = Dense(64, activation='relu')(inp)
h = Dropout(0.25)(h)
h = Dense(32, activation='relu')(h)
out = Dense(1, activation='sigmoid')(h)
model = Model(inputs=inp, outputs=out)

model.compile(optimizer=optimizers.Adam(lr=LEARNING_RATE), loss='binary_crossentropy', metrics=['accuracy'])
model.fit(x_train, y_train, epochs=500, batch_size=32, validation_split=0.15,
          callbacks=[EarlyStopping(monitor='val_loss', patience=PATIENCE)])
print(model.evaluate(x_test, y_test))
